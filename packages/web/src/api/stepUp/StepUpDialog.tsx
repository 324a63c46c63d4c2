import { useState } from 'react'
import { Input, Typography } from 'antd'
import type { ProofMethod } from '@velo/shared'
import i18n from '../../i18n'
import { addPartTexts } from '../../i18n/partTexts'
import { feedback } from '../../lib/feedback'
import { failureMessage } from '../errors'
import { exchange } from '../transport'
import en from './texts.en_US'
import zh from './texts.zh_CN'

// The second proof a dangerous action asks for (401, code 50020): a dialog for the code of the
// authenticator app (or a recovery code), or the password where the user has no factor. Loaded the
// first time it is needed: the list's first screen carries none of it.

addPartTexts({ en_US: en, zh_CN: zh })

function ProofField({ password, onChange }: { password: boolean; onChange: (value: string) => void }) {
  const [value, setValue] = useState('')
  const change = (next: string) => {
    setValue(next)
    onChange(next)
  }
  const common = { autoFocus: true, value, 'data-testid': 'step-up-input', onChange: (e: { target: { value: string } }) => change(e.target.value) }
  return (
    <>
      <Typography.Paragraph>{i18n.t(password ? 'stepUp.passwordHint' : 'stepUp.codeHint')}</Typography.Paragraph>
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
  let value = ''
  open = new Promise<boolean>((resolve) => {
    const dialog = feedback.modal.confirm({
      title: i18n.t('stepUp.title'),
      content: <ProofField password={password} onChange={(v) => (value = v)} />,
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
