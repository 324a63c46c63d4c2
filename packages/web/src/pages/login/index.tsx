import { lazy, Suspense, useCallback, useState } from 'react'
import type { ProofMethod, SignInAnswer } from '@velo/shared'
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
import { passkeysSupported } from '../../api/passkeys'
import { toast } from '../../layout/auth/toast'
import { useCaptcha } from '../../layout/auth/useCaptcha'
import { useFeatures } from '../../layout/auth/useFeatures'

type LoginValues = { username: string; password: string; code: string }

// What comes after the password when it does: a second factor, its enrolment, the recovery codes to keep.
const SecondSteps = () => import('./SecondSteps')
const CodeStep = lazy(() => SecondSteps().then((m) => ({ default: m.CodeStep })))
const EnrolStep = lazy(() => SecondSteps().then((m) => ({ default: m.EnrolStep })))
const RecoveryCodesStep = lazy(() => SecondSteps().then((m) => ({ default: m.RecoveryCodesStep })))

type Step = { kind: 'password' } | { kind: 'code'; ticket: string; methods: ProofMethod[] } | { kind: 'enrol'; ticket: string } | { kind: 'codes'; answer: SignInAnswer }

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

  const [step, setStep] = useState<Step>({ kind: 'password' })
  const restart = useCallback(() => {
    setStep({ kind: 'password' })
    setSubmitting(false)
    captcha.refresh()
  }, [captcha])

  /** A finished sign-in: into the console, at the page that sent the user here. */
  function enter({ token, userInfo, routes }: SignInAnswer) {
    if (!token) return
    sessionActions.signedIn(token)
    const opens = opensAfter()
    nav.startSession(userInfo && routes ? { userInfo, routes, opens } : undefined)
    // Out of the public pages this opens the console (already loading), still showing this form meanwhile.
    nav.navigate(opens, { replace: true })
  }
  /** The answer of the last step: the recovery codes of a new factor first, else the console. */
  function finish(answer: SignInAnswer) {
    if (answer.recoveryCodes?.length) setStep({ kind: 'codes', answer })
    else enter(answer)
  }

  async function submit(values: LoginValues) {
    setSubmitting(true)
    preload()
    const username = values.username.trim()
    try {
      const answer = await authApi.login({ username, password: values.password, code: values.code, uuid: captcha.uuid })
      if (remember) localStorage.setItem(REMEMBERED_USERNAME_KEY, username)
      else localStorage.removeItem(REMEMBERED_USERNAME_KEY)
      if (answer.secondFactor) setStep({ kind: 'code', ticket: answer.secondFactor.ticket, methods: answer.secondFactor.methods })
      else if (answer.enrol) setStep({ kind: 'enrol', ticket: answer.enrol.ticket })
      else finish(answer)
    } catch (error) {
      // The server's message: wrong password, locked account, bad code.
      toast('error', errorText(error))
      form.reset('code', '')
      captcha.refresh()
      setSubmitting(false)
    }
  }

  // A passkey signs in on its own: no password, no second step (the device verified its user).
  const [passkeyBusy, setPasskeyBusy] = useState(false)
  async function signInWithPasskey() {
    if (passkeyBusy) return
    setPasskeyBusy(true)
    preload()
    const answer = await (await SecondSteps()).passkeySignIn()
    setPasskeyBusy(false)
    if (answer) finish(answer)
  }

  if (step.kind !== 'password') {
    const title = step.kind === 'code' ? t('login.secondFactorTitle') : step.kind === 'enrol' ? t('login.enrolTitle') : t('login.recoveryTitle')
    return (
      <AuthFrame title={title}>
        <Suspense fallback={null}>
          {step.kind === 'code' && <CodeStep ticket={step.ticket} methods={step.methods} onDone={finish} onRestart={restart} />}
          {step.kind === 'enrol' && <EnrolStep ticket={step.ticket} onDone={finish} onRestart={restart} />}
          {step.kind === 'codes' && <RecoveryCodesStep codes={step.answer.recoveryCodes!} onContinue={() => enter(step.answer)} />}
        </Suspense>
      </AuthFrame>
    )
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
        {passkeysSupported() && (
          <div className="auth-item">
            <button type="button" className={`auth-button auth-button-secondary${passkeyBusy ? ' auth-button-busy' : ''}`} aria-busy={passkeyBusy} onClick={() => void signInWithPasskey()} data-testid="login-passkey">
              <span>{t('login.passkey')}</span>
            </button>
          </div>
        )}
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
