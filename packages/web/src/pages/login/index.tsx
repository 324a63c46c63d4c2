import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react'
import type { ProofMethod, SignInAnswer } from '@velo/shared'
import { API_BASE_URL, REMEMBERED_USERNAME_KEY } from '../../lib/config'
import { safeRedirect } from '../../session/redirectTarget'
import { sessionActions } from '../../session/sessionStore'
import { authApi, errorText } from '../../layout/auth/authApi'
import { AuthCheckbox, AuthPasswordField, AuthSubmit, AuthTextField } from '../../layout/auth/AuthFields'
import { AuthFrame } from '../../layout/auth/AuthFrame'
import { required, useAuthForm } from '../../layout/auth/authForm'
import { t, type AuthMessageKey } from '../../layout/auth/authI18n'
import { AuthLink, useAuthNav } from '../../layout/auth/AuthNav'
import { CaptchaField, captchaRules } from '../../layout/auth/CaptchaField'
import { Icon, LoadingOutlined, LockOutlined, UserOutlined } from '../../layout/auth/icons'
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

/** Why a single sign-on stopped (?ssoError=, from the server's callback), in the page's language. */
const SSO_ERRORS = ['unavailable', 'cancelled', 'expired', 'failed', 'noEmail', 'emailUnverified', 'ambiguous', 'disabled'] as const
const ssoErrorText = (reason: string): string => t(`sso.${(SSO_ERRORS as readonly string[]).includes(reason) ? reason : 'failed'}` as AuthMessageKey)

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
  /** A first step's answer (the password's, or single sign-on's): the second factor or its enrolment, else the console. */
  function proceed(answer: SignInAnswer) {
    if (answer.secondFactor) setStep({ kind: 'code', ticket: answer.secondFactor.ticket, methods: answer.secondFactor.methods })
    else if (answer.enrol) setStep({ kind: 'enrol', ticket: answer.enrol.ticket })
    else finish(answer)
  }

  // Back from the identity provider: ?sso=<one-time code> signs in as a password would; ?ssoError=<reason> says why not.
  // Once, for the address the page opened at.
  const [ssoBusy, setSsoBusy] = useState(false)
  const ssoHandled = useRef(false)
  useEffect(() => {
    const params = new URLSearchParams(nav.search)
    const code = params.get('sso')
    const error = params.get('ssoError')
    if (ssoHandled.current || (!code && !error)) return
    ssoHandled.current = true
    // The address keeps only where to go next: a reload neither trades the spent code nor repeats the message.
    const redirect = params.get('redirect')
    nav.navigate(redirect ? `/login?redirect=${encodeURIComponent(redirect)}` : '/login', { replace: true })
    if (error) {
      toast('error', ssoErrorText(error))
      return
    }
    setSsoBusy(true)
    preload()
    authApi.loginSso(code!).then(proceed, (failure: unknown) => {
      toast('error', errorText(failure))
      setSsoBusy(false)
    })
  }, [])
  // Back from the provider's page with the browser's back button, this page comes from its cache: no longer busy.
  useEffect(() => {
    const shown = (e: PageTransitionEvent) => e.persisted && setSsoBusy(false)
    window.addEventListener('pageshow', shown)
    return () => window.removeEventListener('pageshow', shown)
  }, [])

  const sso = features?.sso
  // Password sign-in switched off: the form is there for the break-glass administrator, folded away.
  const [passwordUnfolded, setPasswordUnfolded] = useState(false)
  const passwordFolded = !!sso && !sso.passwordSignIn && !passwordUnfolded
  const ssoStart = () => {
    const redirect = new URLSearchParams(nav.search).get('redirect')
    const safe = redirect ? safeRedirect(redirect) : null
    return `${API_BASE_URL}/auth/oidc/start${safe && safe !== '/' ? `?redirect=${encodeURIComponent(safe)}` : ''}`
  }
  const ssoButton = sso && (
    <div className="auth-item">
      <a
        className={`auth-button${sso.passwordSignIn ? ' auth-button-default' : ''}${ssoBusy ? ' auth-button-busy' : ''}`}
        href={ssoStart()}
        aria-busy={ssoBusy}
        data-testid="login-sso"
        onClick={(e) => {
          if (ssoBusy) return e.preventDefault()
          setSsoBusy(true)
          preload()
        }}
      >
        {ssoBusy && <Icon icon={LoadingOutlined} spin className="auth-button-spinner" />}
        <span>{ssoBusy ? t('login.signingIn') : sso.name ? t('login.ssoWith', { name: sso.name }) : t('login.sso')}</span>
      </a>
    </div>
  )

  async function submit(values: LoginValues) {
    setSubmitting(true)
    preload()
    const username = values.username.trim()
    try {
      const answer = await authApi.login({ username, password: values.password, code: values.code, uuid: captcha.uuid })
      if (remember) localStorage.setItem(REMEMBERED_USERNAME_KEY, username)
      else localStorage.removeItem(REMEMBERED_USERNAME_KEY)
      proceed(answer)
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

  if (passwordFolded) {
    return (
      <AuthFrame title={t('login.title')}>
        <div className="auth-form" data-testid="login-sso-only">
          {ssoButton}
          <div className="auth-links auth-links-end">
            <button type="button" className="auth-link auth-link-button" data-testid="login-admin" onClick={() => setPasswordUnfolded(true)}>
              {t('login.adminSignIn')}
            </button>
          </div>
        </div>
      </AuthFrame>
    )
  }

  return (
    <AuthFrame title={t('login.title')}>
      {sso && (
        <>
          {ssoButton}
          <div className="auth-divider">{t('login.or')}</div>
        </>
      )}
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
            <button type="button" className={`auth-button auth-button-default${passkeyBusy ? ' auth-button-busy' : ''}`} aria-busy={passkeyBusy} onClick={() => void signInWithPasskey()} data-testid="login-passkey">
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
