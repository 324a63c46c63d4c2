import { useState } from 'react'
import { App, Button, Form, Input } from 'antd'
import { useTranslation } from 'react-i18next'
import { updatePassword } from '../../../api/profile'
import { actionFailedText } from '../../../api/http'
import { MESSAGE_DURATION_S } from '../../../lib/config'
import { confirmPasswordRules, newPasswordRules } from '../../../lib/validation'

interface PasswordValues {
  oldPassword: string
  newPassword: string
  confirmPassword: string
}

export function PasswordForm() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<PasswordValues>()
  const [saving, setSaving] = useState(false)

  async function save({ oldPassword, newPassword }: PasswordValues) {
    setSaving(true)
    try {
      await updatePassword({ oldPassword, newPassword })
      form.resetFields()
      void message.success(t('profile.passwordChanged'))
    } catch (error) {
      // This call is silent in the client so the failure reads as one message, with the server's reason.
      void message.error(actionFailedText(t('profile.passwordFailed'), error), MESSAGE_DURATION_S)
    } finally {
      setSaving(false)
    }
  }

  return (
    <Form<PasswordValues> form={form} layout="vertical" style={{ maxWidth: 480 }} onFinish={(v) => void save(v)} data-testid="password-form">
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
      <Button type="primary" htmlType="submit" loading={saving}>
        {t('common.save')}
      </Button>
    </Form>
  )
}
