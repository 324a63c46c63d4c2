import { Button, Form, Input } from 'antd'
import { useMutation } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { updatePassword } from '../../../api/profile'
import { actionFailedText } from '../../../api/http'
import { MESSAGE_DURATION_S } from '../../../lib/config'
import { confirmPasswordRules, newPasswordRules } from '../../../lib/validation'
import { useFeedback } from '../../../lib/feedback'

interface PasswordValues {
  oldPassword: string
  newPassword: string
  confirmPassword: string
}

export function PasswordForm() {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const [form] = Form.useForm<PasswordValues>()
  const passwordChange = useMutation({
    mutationFn: ({ oldPassword, newPassword }: PasswordValues) => updatePassword({ oldPassword, newPassword }),
    onSuccess: () => {
      form.resetFields()
      void message.success(t('profile.passwordChanged'))
    },
    onError: (error) => {
      // This call is silent in the client so the failure reads as one message, with the server's reason.
      void message.error(actionFailedText(t('profile.passwordFailed'), error), MESSAGE_DURATION_S)
    },
  })

  return (
    <Form<PasswordValues> form={form} layout="vertical" style={{ maxWidth: 480 }} onFinish={(v) => passwordChange.mutate(v)} data-testid="password-form">
      <Form.Item name="oldPassword" label={t('profile.oldPassword')} rules={[{ required: true, message: t('validation.oldPasswordRequired') }]}>
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Form.Item
        name="newPassword"
        label={t('profile.newPassword')}
        rules={newPasswordRules(t, 'validation.newPasswordRequired')}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={t('profile.confirmPassword')}
        dependencies={['newPassword']}
        rules={confirmPasswordRules(t, 'newPassword')}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={passwordChange.isPending}>
        {t('common.save')}
      </Button>
    </Form>
  )
}
