import { useState } from 'react'
import { REMEMBERED_USERNAME_KEY } from '../../lib/config'
import { safeRedirect } from '../../session/redirectTarget'
import { sessionActions } from '../../session/sessionStore'
import { authApi, errorText } from '../../layout/auth/authApi'
import { AuthCheckbox, AuthPasswordField, AuthSubmit, AuthTextField } from '../../layout/auth/AuthFields'
import { AuthFrame } from '../../layout/auth/AuthFrame'
import { required, useAuthForm } from '../../layout/auth/authForm'
import { t } from '../../layout/auth/authI18n'
import { AuthLink, useAuthNav } from '../../layout/auth/AuthNav'
import { CaptchaField, captchaRules } from '../../layout/auth/CaptchaField'
import { LockOutlined, UserOutlined } from '../../layout/auth/icons'
import { toast } from '../../layout/auth/toast'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

type LoginValues = { username: string; password: string; code: string }

// The sign-in page is part of the entry chunk and loads no antd (see main.tsx): it paints at once,
// and the console it leads to starts loading as soon as the user begins to fill the form.

export default function LoginPage() {
  const nav = useAuthNav()
  const captcha = useCaptcha()
  const features = useFeatures().data
  const [remembered] = useState(() => localStorage.getItem(REMEMBERED_USERNAME_KEY))
  const [remember, setRemember] = useState(remembered !== null)
  const [submitting, setSubmitting] = useState(false)
  const form = useAuthForm<LoginValues>(
    { username: remembered ?? '', password: '', code: '' },
    {
      username: [required(t('login.usernameRequired'), { whitespace: true })],
      password: [required(t('login.passwordRequired'))],
      code: captchaRules(captcha),
    },
  )

  /** Where the sign-in leads: the page that sent the user here, else the home page. */
  const opensAfter = () => safeRedirect(new URLSearchParams(nav.search).get('redirect'))
  // The user is about to sign in: load the console and the page it opens meanwhile (not before, so the page alone stays light).
  const preload = () => nav.preloadConsole(opensAfter())

  async function submit(values: LoginValues) {
    setSubmitting(true)
    preload()
    const username = values.username.trim()
    try {
      const { token, userInfo, routes } = await authApi.login({ username, password: values.password, code: values.code, uuid: captcha.uuid })
      if (remember) localStorage.setItem(REMEMBERED_USERNAME_KEY, username)
      else localStorage.removeItem(REMEMBERED_USERNAME_KEY)
      sessionActions.signedIn(token)
      const opens = opensAfter()
      nav.startSession(userInfo && routes ? { userInfo, routes, opens } : undefined)
      // Out of the public pages this opens the console (already loading), still showing this form meanwhile.
      nav.navigate(opens, { replace: true })
    } catch (error) {
      // The server's message: wrong password, locked account, bad code.
      toast('error', errorText(error))
      form.reset('code', '')
      captcha.refresh()
      setSubmitting(false)
    }
  }

  return (
    <AuthFrame title={t('login.title')}>
      <form
        className="auth-form"
        noValidate
        onSubmit={form.onSubmit((v) => void submit(v))}
        onPointerDown={preload}
        onKeyDown={preload}
        onFocus={preload}
        onInput={preload}
        data-testid="login-form"
      >
        <AuthTextField field={form.field('username')} icon={UserOutlined} placeholder={t('login.username')} autoComplete="username" />
        <AuthPasswordField field={form.field('password')} icon={LockOutlined} placeholder={t('login.password')} autoComplete="current-password" />
        <CaptchaField captcha={captcha} field={form.field('code')} />
        <div className="auth-item">
          <AuthCheckbox checked={remember} onChange={setRemember}>
            {t('login.remember')}
          </AuthCheckbox>
        </div>
        <div className="auth-item">
          <AuthSubmit busy={submitting} testId="login-submit">
            {submitting ? t('login.signingIn') : t('login.submit')}
          </AuthSubmit>
        </div>
        {(features?.registerEnabled || features?.forgetPasswordEnabled) && (
          <div className="auth-links">
            {features.forgetPasswordEnabled ? <AuthLink to="/forgetPassword">{t('login.forgetPassword')}</AuthLink> : <span />}
            {features.registerEnabled && <AuthLink to="/register">{t('login.register')}</AuthLink>}
          </div>
        )}
      </form>
    </AuthFrame>
  )
}
