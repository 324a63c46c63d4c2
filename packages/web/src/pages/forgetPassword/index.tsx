import { useEffect, useState } from 'react'
import { EMAIL_PATTERN } from '@velo/shared'
import { authApi, errorText } from '../../layout/auth/authApi'
import { AuthSubmit, AuthTextField } from '../../layout/auth/AuthFields'
import { AuthFrame, AuthLoading } from '../../layout/auth/AuthFrame'
import { pattern, required, useAuthForm } from '../../layout/auth/authForm'
import { t } from '../../layout/auth/authI18n'
import { AuthLink, useAuthNav } from '../../layout/auth/AuthNav'
import { CaptchaField, captchaRules } from '../../layout/auth/CaptchaField'
import { MailOutlined, NumberOutlined } from '../../layout/auth/icons'
import { confirmPasswordRules, newPasswordRules, NewPasswordFields } from '../../layout/auth/NewPasswordFields'
import { toast } from '../../layout/auth/toast'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

type SendValues = { email: string; code: string }
type ResetValues = { resetCode: string; password: string; confirmPassword: string }

/** Mails a reset code to the account's address (step 1 of 2). */
function SendCodeForm({ onSent }: { onSent: (email: string) => void }) {
  const captcha = useCaptcha()
  const [busy, setBusy] = useState(false)
  const form = useAuthForm<SendValues>(
    { email: '', code: '' },
    {
      email: [required(t('validation.emailRequired')), pattern(EMAIL_PATTERN, t('validation.email'))],
      code: captchaRules(captcha),
    },
  )

  async function send(values: SendValues) {
    setBusy(true)
    const email = values.email.trim()
    try {
      await authApi.sendResetCode({ email, code: values.code, uuid: captcha.uuid })
      toast('success', t('forget.codeSent'))
      onSent(email)
    } catch (error) {
      toast('error', errorText(error))
      form.reset('code', '')
      captcha.refresh()
      setBusy(false)
    }
  }

  return (
    <form className="auth-form" noValidate onSubmit={form.onSubmit((v) => void send(v))} data-testid="forget-send-form">
      <AuthTextField field={form.field('email')} icon={MailOutlined} placeholder={t('forget.email')} autoComplete="email" />
      <CaptchaField captcha={captcha} field={form.field('code')} />
      <div className="auth-item">
        <AuthSubmit busy={busy}>{t('forget.sendCode')}</AuthSubmit>
      </div>
    </form>
  )
}

/** Sets the new password with the mailed code (step 2 of 2). */
function ResetForm({ email, onDone }: { email: string; onDone: () => void }) {
  const [busy, setBusy] = useState(false)
  const form = useAuthForm<ResetValues>(
    { resetCode: '', password: '', confirmPassword: '' },
    {
      resetCode: [required(t('forget.resetCodeRequired'), { whitespace: true })],
      password: newPasswordRules(),
      confirmPassword: confirmPasswordRules(),
    },
    { confirmPassword: ['password'] },
  )

  async function reset(values: ResetValues) {
    setBusy(true)
    try {
      await authApi.resetPassword({ email, resetCode: values.resetCode.trim(), password: values.password })
      toast('success', t('forget.success'))
      onDone()
    } catch (error) {
      toast('error', errorText(error))
      setBusy(false)
    }
  }

  return (
    <form className="auth-form" noValidate onSubmit={form.onSubmit((v) => void reset(v))} data-testid="forget-reset-form">
      <p className="auth-text">{t('forget.codeSentTo', { email })}</p>
      <AuthTextField field={form.field('resetCode')} icon={NumberOutlined} placeholder={t('forget.resetCode')} autoComplete="one-time-code" />
      <NewPasswordFields password={form.field('password')} confirm={form.field('confirmPassword')} placeholder={t('forget.newPassword')} />
      <div className="auth-item">
        <AuthSubmit busy={busy}>{t('forget.reset')}</AuthSubmit>
      </div>
    </form>
  )
}

/** Two steps: mail a reset code to the account's address, then set a new password with it. */
export default function ForgetPasswordPage() {
  const nav = useAuthNav()
  const features = useFeatures()
  const [email, setEmail] = useState<string | null>(null)
  const closed = !features.isPending && !features.data?.forgetPasswordEnabled
  useEffect(() => {
    if (closed) nav.navigate('/login', { replace: true })
  }, [closed, nav])

  if (features.isPending) return <AuthLoading />
  if (closed) return null

  return (
    <AuthFrame title={t('forget.title')}>
      {email === null ? <SendCodeForm onSent={setEmail} /> : <ResetForm email={email} onDone={() => nav.navigate('/login', { replace: true })} />}
      <div className="auth-links">
        <span />
        <AuthLink to="/login">{t('register.haveAccount')}</AuthLink>
      </div>
    </AuthFrame>
  )
}
