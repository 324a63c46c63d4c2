import { useEffect, useState } from 'react'
import { USERNAME_PATTERN } from '@velo/shared'
import { authApi, errorText } from '../../layout/auth/authApi'
import { AuthSubmit, AuthTextField } from '../../layout/auth/AuthFields'
import { AuthFrame, AuthLoading } from '../../layout/auth/AuthFrame'
import { pattern, required, useAuthForm } from '../../layout/auth/authForm'
import { t } from '../../layout/auth/authI18n'
import { AuthLink, useAuthNav } from '../../layout/auth/AuthNav'
import { CaptchaField, captchaRules } from '../../layout/auth/CaptchaField'
import { UserOutlined } from '../../layout/auth/icons'
import { confirmPasswordRules, newPasswordRules, NewPasswordFields } from '../../layout/auth/NewPasswordFields'
import { toast } from '../../layout/auth/toast'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

type RegisterValues = { username: string; password: string; confirmPassword: string; code: string }

/** Self-registration; only reachable when the server enables it. Light like the sign-in page. */
export default function RegisterPage() {
  const nav = useAuthNav()
  const features = useFeatures()
  const captcha = useCaptcha()
  const [submitting, setSubmitting] = useState(false)
  const form = useAuthForm<RegisterValues>(
    { username: '', password: '', confirmPassword: '', code: '' },
    {
      username: [required(t('login.usernameRequired'), { whitespace: true }), pattern(USERNAME_PATTERN, t('validation.username'))],
      password: newPasswordRules(),
      confirmPassword: confirmPasswordRules(),
      code: captchaRules(captcha),
    },
    { confirmPassword: ['password'] },
  )
  const closed = !features.isPending && !features.data?.registerEnabled
  useEffect(() => {
    if (closed) nav.navigate('/login', { replace: true })
  }, [closed, nav])

  if (features.isPending) return <AuthLoading />
  if (closed) return null

  async function submit(values: RegisterValues) {
    setSubmitting(true)
    const username = values.username.trim()
    try {
      await authApi.register({ ...values, username, uuid: captcha.uuid })
      toast('success', t('register.success', { username }))
      nav.navigate('/login', { replace: true })
    } catch (error) {
      toast('error', errorText(error))
      form.reset('code', '')
      captcha.refresh()
      setSubmitting(false)
    }
  }

  return (
    <AuthFrame title={t('register.title')}>
      <form className="auth-form" noValidate onSubmit={form.onSubmit((v) => void submit(v))} data-testid="register-form">
        <AuthTextField field={form.field('username')} icon={UserOutlined} placeholder={t('login.username')} autoComplete="username" />
        <NewPasswordFields password={form.field('password')} confirm={form.field('confirmPassword')} placeholder={t('login.password')} />
        <CaptchaField captcha={captcha} field={form.field('code')} />
        <div className="auth-item">
          <AuthSubmit busy={submitting}>{t('register.submit')}</AuthSubmit>
        </div>
        <div className="auth-links">
          <span />
          <AuthLink to="/login">{t('register.haveAccount')}</AuthLink>
        </div>
      </form>
    </AuthFrame>
  )
}
