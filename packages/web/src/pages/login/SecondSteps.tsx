import { useEffect, useRef, useState } from 'react'
import type { ProofMethod, SignInAnswer } from '@velo/shared'
import { answerWithPasskey, createPasskey, passkeyCancelled, passkeysSupported } from '../../api/passkeys'
import { authApi, errorText } from '../../layout/auth/authApi'
import { AuthSubmit, AuthTextField } from '../../layout/auth/AuthFields'
import { required, useAuthForm } from '../../layout/auth/authForm'
import { t } from '../../layout/auth/authI18n'
import { Icon, LoadingOutlined, SafetyOutlined } from '../../layout/auth/icons'
import { toast } from '../../layout/auth/toast'

// The steps of a sign-in after the password, loaded only when one is needed: the sign-in page's
// first paint stays as light as before (e2e/bundle.spec.ts).

/** The server's answer once the sign-in is done: the session, and the page's way on from there. */
export type Finish = (answer: SignInAnswer) => void

/**
 * Runs a passkey ceremony: the server's options, the browser's prompt, the server's check. A prompt
 * the user closed says so quietly; a refusal shows the server's reason.
 */
async function withPasskey<T>(ceremony: () => Promise<T>): Promise<T | null> {
  try {
    return await ceremony()
  } catch (error) {
    toast('error', passkeyCancelled(error) ? t('login.passkeyCancelled') : errorText(error))
    return null
  }
}

/** A sign-in by passkey alone (the sign-in page's "Sign in with a passkey"): the answer, or null. */
export function passkeySignIn(): Promise<SignInAnswer | null> {
  return withPasskey(async () => {
    const { challengeId, options } = await authApi.passkeySignInOptions()
    return authApi.passkeySignIn(challengeId, await answerWithPasskey(options))
  })
}

/** The outlined button of a passkey's way, busy while the browser's prompt is open. */
export function PasskeyButton({ onClick, children, testId }: { onClick: () => Promise<unknown>; children: string; testId: string }) {
  const [busy, setBusy] = useState(false)
  const run = () => {
    if (busy) return
    setBusy(true)
    void onClick().finally(() => setBusy(false))
  }
  return (
    <button type="button" className={`auth-button auth-button-default${busy ? ' auth-button-busy' : ''}`} aria-busy={busy} onClick={run} data-testid={testId}>
      {busy && <Icon icon={LoadingOutlined} spin className="auth-button-spinner" />}
      <span>{children}</span>
    </button>
  )
}

/** The second step for the ticket the password gave: the user's passkey, a code of their authenticator app, or a recovery code. */
export function CodeStep({ ticket, methods, onDone, onRestart }: { ticket: string; methods: readonly ProofMethod[]; onDone: Finish; onRestart: () => void }) {
  const passkey = methods.includes('passkey') && passkeysSupported()
  const usePasskey = async () => {
    const answer = await withPasskey(async () => authApi.secondFactorPasskey(ticket, await answerWithPasskey(await authApi.secondFactorPasskeyOptions(ticket))))
    if (answer) onDone(answer)
  }
  const [busy, setBusy] = useState(false)
  const form = useAuthForm<{ code: string }>({ code: '' }, { code: [required(t('login.secondFactorRequired'), { whitespace: true })] })
  async function submit({ code }: { code: string }) {
    setBusy(true)
    try {
      onDone(await authApi.secondFactor(ticket, code.trim()))
    } catch (error) {
      toast('error', errorText(error))
      form.reset('code', '')
      setBusy(false)
    }
  }
  return (
    <form className="auth-form" noValidate onSubmit={form.onSubmit((v) => void submit(v))} data-testid="second-factor-form">
      <p className="auth-text auth-step-hint">{t(passkey ? (methods.includes('totp') ? 'login.secondFactorPasskeyOrAppHint' : 'login.secondFactorPasskeyHint') : 'login.secondFactorHint')}</p>
      {passkey && (
        <>
          <div className="auth-item">
            <PasskeyButton onClick={usePasskey} testId="second-factor-passkey">
              {t('login.usePasskey')}
            </PasskeyButton>
          </div>
          <div className="auth-divider">{t('login.orCode')}</div>
        </>
      )}
      <AuthTextField field={form.field('code')} icon={SafetyOutlined} placeholder={t('login.secondFactorCode')} autoComplete="one-time-code" inputMode="text" autoFocus={!passkey} data-testid="second-factor-code" />
      <div className="auth-item">
        <AuthSubmit busy={busy} testId="second-factor-submit">
          {t('login.verify')}
        </AuthSubmit>
      </div>
      <div className="auth-links">
        <button type="button" className="auth-link auth-link-button" onClick={onRestart}>
          {t('login.back')}
        </button>
      </div>
    </form>
  )
}

/** A role requires a factor the user lacks, past its grace period: set up the app, then its first code signs in. */
export function EnrolStep({ ticket, onDone, onRestart }: { ticket: string; onDone: Finish; onRestart: () => void }) {
  const [seed, setSeed] = useState<{ secret: string; qrSvg: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const form = useAuthForm<{ code: string }>({ code: '' }, { code: [required(t('login.secondFactorRequired'), { whitespace: true })] })
  // One seed per ticket: asked again, the server would issue another and the scanned one would not match.
  const restart = useRef(onRestart)
  restart.current = onRestart
  useEffect(() => {
    let live = true
    authApi.enrolStart(ticket).then(
      (s) => live && setSeed(s),
      (error: unknown) => {
        toast('error', errorText(error))
        if (live) restart.current()
      },
    )
    return () => {
      live = false
    }
  }, [ticket])
  // A passkey instead of the app: the seed shown goes unused, and the server forgets it in ten minutes.
  async function addPasskey() {
    const answer = await withPasskey(async () => authApi.enrolPasskeyConfirm(ticket, await createPasskey(await authApi.enrolPasskeyStart(ticket))))
    if (answer) onDone(answer)
  }
  async function submit({ code }: { code: string }) {
    setBusy(true)
    try {
      onDone(await authApi.enrolConfirm(ticket, code.trim()))
    } catch (error) {
      toast('error', errorText(error))
      form.reset('code', '')
      setBusy(false)
    }
  }
  return (
    <form className="auth-form" noValidate onSubmit={form.onSubmit((v) => void submit(v))} data-testid="enrol-form">
      <p className="auth-text auth-step-hint">{t('login.enrolHint')}</p>
      {seed && (
        <>
          <img className="auth-qr" src={`data:image/svg+xml;utf8,${encodeURIComponent(seed.qrSvg)}`} alt={t('login.enrolQrAlt')} width={180} height={180} data-testid="enrol-qr" />
          <p className="auth-text auth-step-hint">
            {t('login.enrolSecret')} <code className="auth-secret" data-testid="enrol-secret">{seed.secret.replace(/(.{4})(?=.)/g, '$1 ')}</code>
          </p>
        </>
      )}
      <AuthTextField field={form.field('code')} icon={SafetyOutlined} placeholder={t('login.enrolCode')} autoComplete="one-time-code" inputMode="numeric" data-testid="enrol-code" />
      <div className="auth-item">
        <AuthSubmit busy={busy} testId="enrol-submit">
          {t('login.enrolConfirm')}
        </AuthSubmit>
      </div>
      {passkeysSupported() && (
        <>
          <div className="auth-divider">{t('login.enrolOrPasskey')}</div>
          <div className="auth-item">
            <PasskeyButton onClick={addPasskey} testId="enrol-passkey">
              {t('login.enrolPasskey')}
            </PasskeyButton>
          </div>
        </>
      )}
    </form>
  )
}

/** The ten recovery codes an enrolment gave, shown once: copied or downloaded before going on. */
export function RecoveryCodesStep({ codes, onContinue }: { codes: string[]; onContinue: () => void }) {
  const [copied, setCopied] = useState(false)
  const text = `${codes.join('\n')}\n`
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(() => setCopied(true))
  }
  const download = () => {
    const href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }))
    const link = document.createElement('a')
    link.href = href
    link.download = 'velo-admin-recovery-codes.txt'
    link.click()
    setTimeout(() => URL.revokeObjectURL(href), 0)
  }
  return (
    <div className="auth-form" data-testid="recovery-codes">
      <p className="auth-text auth-step-hint">{t('login.recoveryHint')}</p>
      <ol className="auth-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div className="auth-links">
        <button type="button" className="auth-link auth-link-button" onClick={copy}>
          {copied ? t('login.recoveryCopied') : t('login.recoveryCopy')}
        </button>
        <button type="button" className="auth-link auth-link-button" onClick={download}>
          {t('login.recoveryDownload')}
        </button>
      </div>
      <div className="auth-item">
        <button type="button" className="auth-button" onClick={onContinue} data-testid="recovery-codes-continue">
          <span>{t('login.recoverySaved')}</span>
        </button>
      </div>
    </div>
  )
}
