import { useState } from 'react'
import { Link, Navigate, useNavigate } from 'react-router'
import { App, Button, Form, Input, Spin } from 'antd'
import { UserOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { register } from '../../api/auth'
import { USERNAME_PATTERN } from '../../lib/validation'
import { AuthFrame } from '../../layout/auth/AuthFrame'
import { CaptchaField } from '../../layout/auth/CaptchaField'
import { NewPasswordFields } from '../../layout/auth/NewPasswordFields'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

interface RegisterForm {
  username: string
  password: string
  confirmPassword: string
  code?: string
}

/** Self-registration; only reachable when the server enables it. */
export default function RegisterPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const features = useFeatures()
  const captcha = useCaptcha()
  const [form] = Form.useForm<RegisterForm>()
  const [submitting, setSubmitting] = useState(false)

  if (features.isPending) return <Spin fullscreen />
  if (!features.data?.registerEnabled) return <Navigate to="/login" replace />

  async function submit(values: RegisterForm) {
    setSubmitting(true)
    const username = values.username.trim()
    try {
      await register({ ...values, username, code: values.code ?? '', uuid: captcha.uuid })
      void message.success(t('register.success', { username }))
      navigate('/login', { replace: true })
    } catch {
      form.setFieldValue('code', '')
      captcha.refresh()
      setSubmitting(false)
    }
  }

  return (
    <AuthFrame title={t('register.title')}>
      <Form<RegisterForm> form={form} size="large" onFinish={(v) => void submit(v)}>
        <Form.Item
          name="username"
          rules={[
            { required: true, whitespace: true, message: t('login.usernameRequired') },
            { pattern: USERNAME_PATTERN, message: t('validation.username') },
          ]}
        >
          <Input prefix={<UserOutlined />} placeholder={t('login.username')} autoComplete="username" />
        </Form.Item>
        <NewPasswordFields placeholder={t('login.password')} />
        <CaptchaField captcha={captcha} />
        <Form.Item>
          <Button type="primary" htmlType="submit" block loading={submitting}>
            {t('register.submit')}
          </Button>
        </Form.Item>
        <div className="auth-links">
          <span />
          <Link to="/login">{t('register.haveAccount')}</Link>
        </div>
      </Form>
    </AuthFrame>
  )
}
