import { useState } from 'react'
import { Button, Form, Input, Modal, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { ApiError } from '../../../api/errors'
import { createPasskey, passkeyCancelled } from '../../../api/passkeys'
import { confirmPasskey, startPasskey, type TotpConfirmed } from '../../../api/profile'
import { useFeedback } from '../../../lib/feedback'

/** A name that tells this device's passkey from the others: "Passkey on Windows" and the like. */
function deviceName(t: (key: string, values?: Record<string, string>) => string): string {
  const agent = navigator.userAgent
  const os = /Windows/.test(agent) ? 'Windows' : /iPhone|iPad/.test(agent) ? 'iOS' : /Mac OS X/.test(agent) ? 'macOS' : /Android/.test(agent) ? 'Android' : /Linux/.test(agent) ? 'Linux' : ''
  return os ? t('profile.security.defaultPasskeyNameOn', { os }) : t('profile.security.defaultPasskeyName')
}

/**
 * Adding a passkey: a name, then the browser's own prompt (Windows Hello, Touch ID, a phone, a
 * security key). The server keeps only the public key.
 */
export function AddPasskeyDialog({ onAdded, onClose }: { onAdded: (added: TotpConfirmed) => void; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const [form] = Form.useForm<{ name: string }>()
  const [busy, setBusy] = useState(false)

  async function create({ name }: { name: string }) {
    setBusy(true)
    try {
      // Asked here, not before: the options carry a challenge that lasts five minutes.
      const passkey = await createPasskey(await startPasskey())
      onAdded(await confirmPasskey({ passkey, name: name.trim() || undefined }))
    } catch (error) {
      // The client already showed a refusal of the server; the browser's own failures are ours to tell.
      if (passkeyCancelled(error)) void message.warning(t('profile.security.passkeyCancelled'))
      else if (!(error instanceof ApiError)) void message.error(t('profile.security.passkeyFailed', { reason: error instanceof Error ? error.message : String(error) }))
      setBusy(false)
    }
  }

  return (
    <Modal
      open
      title={t('profile.security.addPasskey')}
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button key="create" type="primary" loading={busy} onClick={() => form.submit()} data-testid="passkey-create">
          {t('profile.security.createPasskey')}
        </Button>,
      ]}
    >
      <div data-testid="passkey-add-dialog">
        <Typography.Paragraph>{t('profile.security.passkeyAbout')}</Typography.Paragraph>
        <Form<{ name: string }> form={form} layout="vertical" name="passkey" initialValues={{ name: deviceName(t) }} onFinish={(values) => void create(values)} requiredMark={false}>
          <Form.Item name="name" label={t('profile.security.appName')} extra={t('profile.security.passkeyNameHint')}>
            <Input maxLength={64} data-testid="passkey-name" />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  )
}
