import { useEffect, useState } from 'react'
import { Alert, Button, Descriptions, Form, Modal, Select, Spin } from 'antd'
import { ControlOutlined } from '@ant-design/icons'
import type { ActionPreview, JobInfo } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { http, requestWithMessage } from '../../../api/http'
import { jobStore } from '../../../api/jobStore'
import { useAccess } from '../../../session/Access'
import { useFeedback } from '../../../lib/feedback'

const PUSH = 'iot:config:push'

/**
 * The IoT list's "Push configuration" for the ticked devices: choose a template, read what the
 * push would do (the template's Push preview: how many get it now, how many when they connect),
 * push. It is the template's own Push action (a job, followed in the top bar), given the devices.
 */
export function PushConfigButton({ deviceIds }: { deviceIds: readonly number[] }) {
  const { t } = useTranslation()
  const may = useAccess({ permissions: [PUSH] })
  // The devices ticked when it opened: live updates re-render the list, not the choice.
  const [chosen, setChosen] = useState<readonly number[] | null>(null)
  if (!may) return null
  return (
    <>
      <Button icon={<ControlOutlined />} disabled={!deviceIds.length} onClick={() => setChosen([...deviceIds])} data-testid="device-push-config">
        {t('iot.config.pushButton')}
      </Button>
      {chosen && <PushConfigDialog deviceIds={chosen} onClose={() => setChosen(null)} />}
    </>
  )
}

function PushConfigDialog({ deviceIds, onClose }: { deviceIds: readonly number[]; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const [options, setOptions] = useState<{ value: number; label: string }[] | null>(null)
  const [configId, setConfigId] = useState<number>()
  const [preview, setPreview] = useState<ActionPreview | null>(null)
  const [pushing, setPushing] = useState(false)

  useEffect(() => {
    http.get<{ value: number; label: string }[]>('/iot/config/options').then(setOptions, () => setOptions([]))
  }, [])

  useEffect(() => {
    setPreview(null)
    if (configId === undefined) return
    let current = true
    http.post<ActionPreview>(`/iot/config/${configId}/action/push/preview`, { deviceIds }).then(
      (p) => current && setPreview(p),
      () => {},
    )
    return () => {
      current = false
    }
  }, [configId, deviceIds])

  const push = async () => {
    if (configId === undefined) return
    setPushing(true)
    try {
      const { data } = await requestWithMessage<JobInfo>({ method: 'POST', url: `/iot/config/${configId}/action/push`, data: { deviceIds } })
      jobStore.started(data)
      void message.success(t('iot.config.pushStarted', { count: deviceIds.length }))
      onClose()
    } catch {
      // The client showed why.
    } finally {
      setPushing(false)
    }
  }

  return (
    <Modal
      open
      title={t('iot.config.pushTitle', { count: deviceIds.length })}
      okText={t('iot.config.pushOk', { count: deviceIds.length })}
      okButtonProps={{ disabled: !preview, loading: pushing, 'data-testid': 'push-config-ok' } as never}
      onOk={push}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item label={t('iot.config.template')}>
          {options ? (
            <Select showSearch optionFilterProp="label" options={options} value={configId} onChange={setConfigId} data-testid="push-config-template" />
          ) : (
            <Spin size="small" />
          )}
        </Form.Item>
      </Form>
      {preview && (
        <>
          <Descriptions size="small" bordered column={1} items={preview.facts.map((f) => ({ key: f.label, label: f.label, children: f.value }))} data-testid="push-config-preview" />
          {preview.warning && <Alert type="warning" showIcon message={preview.warning} style={{ marginTop: 12 }} />}
        </>
      )}
    </Modal>
  )
}
