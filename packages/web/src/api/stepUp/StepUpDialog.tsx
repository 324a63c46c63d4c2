import { useState } from 'react'
import { Button, Input, Typography } from 'antd'
import type { ProofMethod } from '@velo/shared'
import i18n from '../../i18n'
import { addPartTexts } from '../../i18n/partTexts'
import { feedback } from '../../lib/feedback'
import { failureMessage } from '../errors'
import { answerWithPasskey, passkeyCancelled, passkeysSupported, type PasskeyOptions } from '../passkeys'
import { exchange } from '../transport'
import en from './texts.en_US'
import zh from './texts.zh_CN'

// The second proof a dangerous action asks for (401, code 50020): a dialog for the user's passkey, the
// code of the authenticator app (or a recovery code), or the password where the user has no factor. Loaded the
// first time it is needed: the list's first screen carries none of it.

addPartTexts({ en_US: en, zh_CN: zh })

/** The proof by passkey: the server's options, the browser's prompt, the server's check. True once accepted. */
async function proveWithPasskey(): Promise<boolean> {
  try {
    const options = (await exchange<PasskeyOptions>({ method: 'POST', url: '/auth/step-up/passkey' })).data
    await exchange({ method: 'POST', url: '/auth/step-up', data: { passkey: await answerWithPasskey(options) } })
    return true
  } catch (error) {
    void feedback.message.error(passkeyCancelled(error) ? i18n.t('stepUp.passkeyCancelled') : failureMessage(error))
    return false
  }
}

function ProofField({ password, passkey, onChange, onPasskey }: { password: boolean; passkey: boolean; onChange: (value: string) => void; onPasskey: () => void }) {
  const [value, setValue] = useState('')
  const [busy, setBusy] = useState(false)
  const change = (next: string) => {
    setValue(next)
    onChange(next)
  }
  const common = { autoFocus: !passkey, value, 'data-testid': 'step-up-input', onChange: (e: { target: { value: string } }) => change(e.target.value) }
  const usePasskey = () => {
    setBusy(true)
    void proveWithPasskey().then((proved) => (proved ? onPasskey() : setBusy(false)))
  }
  return (
    <>
      <Typography.Paragraph>{i18n.t(password ? 'stepUp.passwordHint' : passkey ? 'stepUp.passkeyHint' : 'stepUp.codeHint')}</Typography.Paragraph>
      {passkey && (
        <Button block type="primary" ghost loading={busy} onClick={usePasskey} style={{ marginBottom: 12 }} data-testid="step-up-passkey">
          {i18n.t('stepUp.usePasskey')}
        </Button>
      )}
      {password ? <Input.Password {...common} placeholder={i18n.t('stepUp.password')} autoComplete="current-password" /> : <Input {...common} placeholder={i18n.t('stepUp.code')} autoComplete="one-time-code" />}
    </>
  )
}

let open: Promise<boolean> | null = null

/**
 * Asks for the proof and gives it to the server (POST /auth/step-up): true once it is accepted, false
 * when the user cancels. A wrong one keeps the dialog open with the server's message. Calls that
 * ask while it is open wait for the same answer: one dialog, whatever the number of calls.
 */
export function proveAgain(methods: readonly ProofMethod[]): Promise<boolean> {
  if (open) return open
  const password = methods.includes('password')
  const passkey = methods.includes('passkey') && passkeysSupported()
  let value = ''
  open = new Promise<boolean>((resolve) => {
    const proved = () => {
      dialog.destroy()
      resolve(true)
    }
    const dialog = feedback.modal.confirm({
      title: i18n.t('stepUp.title'),
      content: <ProofField password={password} passkey={passkey} onChange={(v) => (value = v)} onPasskey={proved} />,
      okText: i18n.t('stepUp.confirm'),
      cancelText: i18n.t('common.cancel'),
      okButtonProps: { 'data-testid': 'step-up-confirm' },
      onOk: async () => {
        if (!value.trim()) {
          void feedback.message.error(i18n.t('stepUp.required'))
          throw new Error('empty')
        }
        try {
          await exchange({ method: 'POST', url: '/auth/step-up', data: password ? { password: value } : { code: value.trim() } })
        } catch (error) {
          void feedback.message.error(failureMessage(error))
          // A rejected onOk keeps the dialog open for another try.
          throw error
        }
        resolve(true)
      },
      onCancel: () => resolve(false),
    })
    // Awaited, antd's dialog keeps a rejected onOk (a wrong code) to itself instead of rethrowing it.
    void dialog.then(
      () => undefined,
      () => undefined,
    )
  }).finally(() => {
    open = null
  })
  return open
}
