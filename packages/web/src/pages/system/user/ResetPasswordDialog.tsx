import { Form, Input, Modal, Typography } from 'antd'
import { useMutation } from '@tanstack/react-query'
import type { ApiRowOf, systemEntities } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { resetUserPassword } from '../../../api/system'
import { confirmPasswordRules, newPasswordRules } from '../../../lib/validation'
import { useFeedback } from '../../../lib/feedback'

interface Values {
  password: string
  confirmPassword: string
}

/** Sets a user's password (the shared PASSWORD_PATTERN, typed twice); the server ends their sessions and lifts a lock. */
export function ResetPasswordDialog({ user, onClose }: { user: Pick<ApiRowOf<typeof systemEntities.user>, 'userId' | 'userName'>; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const [form] = Form.useForm<Values>()
  const { userName } = user
  const passwordReset = useMutation({
    mutationFn: (password: string) => resetUserPassword(user.userId, password),
    onSuccess: () => {
      void message.success(t('user.passwordReset', { name: userName }))
      onClose()
    },
    // onError left out: the client showed why.
  })

  async function save() {
    let values: Values
    try {
      values = await form.validateFields()
    } catch {
      return
    }
    passwordReset.mutate(values.password)
  }

  return (
    <Modal
      open
      title={t('user.resetPwd')}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      onOk={() => void save()}
      confirmLoading={passwordReset.isPending}
      onCancel={onClose}
      destroyOnHidden
      mask={{ closable: false }}
    >
      <Typography.Paragraph>{t('user.resetPwdFor', { name: userName })}</Typography.Paragraph>
      <Form<Values> form={form} layout="vertical" name="reset-password" data-testid="reset-password-form">
        <Form.Item name="password" label={t('profile.newPassword')} rules={newPasswordRules(t, 'validation.newPasswordRequired')} extra={t('validation.password')}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item name="confirmPassword" label={t('profile.confirmPassword')} dependencies={['password']} rules={confirmPasswordRules(t)}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  )
}
