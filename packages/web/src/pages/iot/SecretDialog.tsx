import { Alert, Button, Modal, Space } from 'antd'
import { useTranslation } from 'react-i18next'
import { SecretValue } from './SecretValue'

export interface ShownSecret {
  sn: string
  secret: string
}

/**
 * A device's secret, shown once: after the device is added or its secret reset. The server keeps
 * only a hash, so closing the dialog loses it for good.
 */
export function SecretDialog({ shown, onClose }: { shown: ShownSecret; onClose: () => void }) {
  const { t } = useTranslation()
  return (
    <Modal
      open
      title={t('iot.secret.title', { sn: shown.sn })}
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose} data-testid="device-secret-close">
          {t('iot.secret.done')}
        </Button>
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="device-secret-dialog">
        <Alert type="warning" showIcon title={t('iot.secret.once')} description={t('iot.secret.onceDetail')} />
        <SecretValue value={shown.secret} testId="device-secret" />
      </Space>
    </Modal>
  )
}
