import { Alert, Button, Modal, Space } from 'antd'
import { CopyOutlined, DownloadOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { saveBlob } from '../../../api/http'
import { copyText } from '../../../lib/clipboard'
import { PRODUCT_NAME } from '../../../lib/config'
import { useFeedback } from '../../../lib/feedback'
import { sessionStore } from '../../../session/sessionStore'

/**
 * The ten recovery codes, right after the server made them. The server keeps only their hashes, so
 * this is the one time they can be seen: the dialog closes only through its button, not by a stray
 * click beside it, and its owner unmounts it then, so the codes leave the page with it.
 */
export function RecoveryCodesDialog({ codes, onClose }: { codes: string[]; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const username = sessionStore.use((s) => s.user?.username) ?? ''

  async function copy() {
    if (await copyText(codes.join('\n'))) void message.success(t('profile.security.copied'))
    else void message.error(t('profile.security.copyFailed'))
  }

  function download() {
    const heading = t('profile.security.codesFileHeading', { product: PRODUCT_NAME, user: username })
    // CRLF so Notepad on older Windows shows one code a line.
    const text = [heading, '', ...codes].join('\r\n') + '\r\n'
    const name = username ? `velo-admin-recovery-codes-${username}.txt` : 'velo-admin-recovery-codes.txt'
    saveBlob(new Blob([text], { type: 'text/plain;charset=utf-8' }), name)
  }

  return (
    <Modal
      open
      title={t('profile.security.codesTitle')}
      closable={false}
      mask={{ closable: false }}
      keyboard={false}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose} data-testid="recovery-codes-done">
          {t('profile.security.codesSaved')}
        </Button>
      }
    >
      <div data-testid="recovery-codes-dialog">
        <Alert type="warning" showIcon title={t('profile.security.codesOnce')} />
        <ol className="recovery-codes" data-testid="recovery-codes-list">
          {codes.map((code) => (
            <li key={code}>{code}</li>
          ))}
        </ol>
        <Space>
          <Button icon={<CopyOutlined />} onClick={() => void copy()} data-testid="recovery-codes-copy">
            {t('profile.security.copy')}
          </Button>
          <Button icon={<DownloadOutlined />} onClick={download} data-testid="recovery-codes-download">
            {t('profile.security.download')}
          </Button>
        </Space>
      </div>
      <style>{`
        .recovery-codes { display: grid; grid-template-columns: repeat(2, 1fr); gap: 6px 24px; margin: 16px 0; padding-left: 24px;
          font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 15px; }
      `}</style>
    </Modal>
  )
}
