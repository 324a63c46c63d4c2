import { LockOutlined } from '@ant-design/icons'
import { Form, Input } from 'antd'
import { useTranslation } from 'react-i18next'
import { confirmPasswordRules, newPasswordRules } from '../../lib/validation'

/** A new password and its confirmation (fields `password` and `confirmPassword`), as the public forms ask for them. */
export function NewPasswordFields({ placeholder }: { placeholder: string }) {
  const { t } = useTranslation()
  return (
    <>
      <Form.Item name="password" rules={newPasswordRules(t)}>
        <Input.Password prefix={<LockOutlined />} placeholder={placeholder} autoComplete="new-password" />
      </Form.Item>
      <Form.Item name="confirmPassword" dependencies={['password']} rules={confirmPasswordRules(t)}>
        <Input.Password prefix={<LockOutlined />} placeholder={t('register.confirmPassword')} autoComplete="new-password" />
      </Form.Item>
    </>
  )
}
