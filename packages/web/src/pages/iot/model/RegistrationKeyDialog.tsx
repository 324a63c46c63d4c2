import { useState } from 'react'
import { Alert, Button, Modal, Result, Space, Spin } from 'antd'
import { ReloadOutlined } from '@ant-design/icons'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { ApiRowOf, iotEntities } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { iotApi } from '../../../api/iot'
import { SecretValue } from '../SecretValue'
import { useFeedback } from '../../../lib/feedback'

const keyOf = (modelId: number) => ['iot', 'registrationKey', modelId] as const

/**
 * A model's registration key: devices of the model sign their self-registration with it (factory
 * line, first boot). Shown with a copy button; a reset (confirmed) makes the old key useless.
 */
export function RegistrationKeyDialog({ model, onClose }: { model: Pick<ApiRowOf<typeof iotEntities.iotModel>, 'modelId' | 'name'>; onClose: () => void }) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const { modelId, name } = model
  const key = useQuery({ queryKey: keyOf(modelId), queryFn: () => iotApi.registrationKey(modelId), gcTime: 0 })
  const [resetting, setResetting] = useState(false)

  const reset = () =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('iot.regKey.resetConfirm', { name }),
      okButtonProps: { danger: true },
      onOk: async () => {
        setResetting(true)
        try {
          const { data, msg } = await iotApi.resetRegistrationKey(modelId)
          queryClient.setQueryData(keyOf(modelId), data)
          void message.success(msg || t('iot.regKey.resetDone'))
        } catch {
          // The client showed why.
        } finally {
          setResetting(false)
        }
      },
    })

  return (
    <Modal
      open
      title={t('iot.regKey.title', { name })}
      onCancel={onClose}
      destroyOnHidden
      width={600}
      footer={
        <Space>
          <Button danger icon={<ReloadOutlined />} loading={resetting} disabled={!key.data} onClick={reset} data-testid="registration-key-reset">
            {t('iot.regKey.reset')}
          </Button>
          <Button type="primary" onClick={onClose}>
            {t('iot.close')}
          </Button>
        </Space>
      }
    >
      {key.isError ? (
        <Result status="warning" subTitle={t('iot.regKey.loadFailed')} />
      ) : !key.data ? (
        <Spin spinning style={{ display: 'block', padding: 32 }} />
      ) : (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="registration-key-dialog">
          <Alert type="info" showIcon title={t('iot.regKey.help')} />
          <SecretValue value={key.data.registrationKey} testId="registration-key" />
        </Space>
      )}
    </Modal>
  )
}
