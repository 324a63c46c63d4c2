import { useState } from 'react'
import { Link, Navigate, useNavigate } from 'react-router'
import { App, Button, Form, Input, Spin } from 'antd'
import { MailOutlined, NumberOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { resetPassword, sendResetCode } from '../../api/auth'
import { EMAIL_PATTERN } from '../../lib/validation'
import { AuthFrame } from '../../layout/auth/AuthFrame'
import { CaptchaField } from '../../layout/auth/CaptchaField'
import { NewPasswordFields } from '../../layout/auth/NewPasswordFields'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

interface SendForm {
  email: string
  code?: string
}

interface ResetForm {
  resetCode: string
  password: string
  confirmPassword: string
}

/** Two steps: mail a reset code to the account's address, then set a new password with it. */
export default function ForgetPasswordPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const features = useFeatures()
  const captcha = useCaptcha()
  const [sendForm] = Form.useForm<SendForm>()
  const [email, setEmail] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  if (features.isPending) return <Spin fullscreen />
  if (!features.data?.forgetPasswordEnabled) return <Navigate to="/login" replace />

  async function send(values: SendForm) {
    setBusy(true)
    try {
      await sendResetCode({ email: values.email.trim(), code: values.code ?? '', uuid: captcha.uuid })
      void message.success(t('forget.codeSent'))
      setEmail(values.email.trim())
    } catch {
      sendForm.setFieldValue('code', '')
      captcha.refresh()
    } finally {
      setBusy(false)
    }
  }

  async function reset(values: ResetForm) {
    if (!email) return
    setBusy(true)
    try {
      await resetPassword({ email, resetCode: values.resetCode.trim(), password: values.password })
      void message.success(t('forget.success'))
      navigate('/login', { replace: true })
    } catch {
      setBusy(false)
    }
  }

  return (
    <AuthFrame title={t('forget.title')}>
      {email === null ? (
        <Form<SendForm> form={sendForm} size="large" onFinish={(v) => void send(v)}>
          <Form.Item
            name="email"
            rules={[
              { required: true, message: t('validation.emailRequired') },
              { pattern: EMAIL_PATTERN, message: t('validation.email') },
            ]}
          >
            <Input prefix={<MailOutlined />} placeholder={t('forget.email')} autoComplete="email" />
          </Form.Item>
          <CaptchaField captcha={captcha} />
          <Form.Item>
            <Button type="primary" htmlType="submit" block loading={busy}>
              {t('forget.sendCode')}
            </Button>
          </Form.Item>
        </Form>
      ) : (
        <Form<ResetForm> size="large" onFinish={(v) => void reset(v)}>
          <p>{t('forget.codeSentTo', { email })}</p>
          <Form.Item name="resetCode" rules={[{ required: true, whitespace: true, message: t('forget.resetCodeRequired') }]}>
            <Input prefix={<NumberOutlined />} placeholder={t('forget.resetCode')} autoComplete="one-time-code" />
          </Form.Item>
          <NewPasswordFields placeholder={t('forget.newPassword')} />
          <Form.Item>
            <Button type="primary" htmlType="submit" block loading={busy}>
              {t('forget.reset')}
            </Button>
          </Form.Item>
        </Form>
      )}
      <div className="auth-links">
        <span />
        <Link to="/login">{t('register.haveAccount')}</Link>
      </div>
    </AuthFrame>
  )
}
