import { useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { Button, Checkbox, Form, Input } from 'antd'
import { LockOutlined, UserOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { login } from '../../api/auth'
import { REMEMBERED_USERNAME_KEY } from '../../app/config'
import { safeRedirect } from '../../app/redirectTarget'
import { sessionActions } from '../../app/session/sessionStore'
import { AuthFrame } from '../../layout/auth/AuthFrame'
import { CaptchaField } from '../../layout/auth/CaptchaField'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

interface LoginForm {
  username: string
  password: string
  code?: string
  remember: boolean
}

export default function LoginPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const captcha = useCaptcha()
  const features = useFeatures().data
  const [form] = Form.useForm<LoginForm>()
  const [submitting, setSubmitting] = useState(false)
  const remembered = localStorage.getItem(REMEMBERED_USERNAME_KEY)

  async function submit(values: LoginForm) {
    setSubmitting(true)
    const username = values.username.trim()
    try {
      // The client shows the server's message (wrong password, locked account, bad code) on failure.
      const { token } = await login({ username, password: values.password, code: values.code ?? '', uuid: captcha.uuid })
      if (values.remember) localStorage.setItem(REMEMBERED_USERNAME_KEY, username)
      else localStorage.removeItem(REMEMBERED_USERNAME_KEY)
      sessionActions.signedIn(token)
      navigate(safeRedirect(params.get('redirect')), { replace: true })
    } catch {
      form.setFieldValue('code', '')
      captcha.refresh()
      setSubmitting(false)
    }
  }

  return (
    <AuthFrame title={t('login.title')}>
      <Form<LoginForm>
        form={form}
        size="large"
        initialValues={{ username: remembered ?? '', remember: remembered !== null }}
        onFinish={(v) => void submit(v)}
        data-testid="login-form"
      >
        <Form.Item name="username" rules={[{ required: true, whitespace: true, message: t('login.usernameRequired') }]}>
          <Input prefix={<UserOutlined />} placeholder={t('login.username')} autoComplete="username" />
        </Form.Item>
        <Form.Item name="password" rules={[{ required: true, message: t('login.passwordRequired') }]}>
          <Input.Password prefix={<LockOutlined />} placeholder={t('login.password')} autoComplete="current-password" />
        </Form.Item>
        <CaptchaField captcha={captcha} />
        <Form.Item name="remember" valuePropName="checked">
          <Checkbox>{t('login.remember')}</Checkbox>
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" block loading={submitting} data-testid="login-submit">
            {submitting ? t('login.signingIn') : t('login.submit')}
          </Button>
        </Form.Item>
        {(features?.registerEnabled || features?.forgetPasswordEnabled) && (
          <div className="auth-links">
            {features.forgetPasswordEnabled ? <Link to="/forgetPassword">{t('login.forgetPassword')}</Link> : <span />}
            {features.registerEnabled && <Link to="/register">{t('login.register')}</Link>}
          </div>
        )}
      </Form>
    </AuthFrame>
  )
}
