import { Form, InputNumber, Modal, Select, Space, Tag } from 'antd'
import { useMutation } from '@tanstack/react-query'
import { COMMANDS, type ApiRowOf, type iotEntities } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { iotApi } from '../../../api/iot'
import { localized } from '../../../i18n'
import { JsonEditor, jsonObjectRule } from '../JsonEditor'
import { parseJsonObject, toJsonText } from '../json'
import { useFeedback } from '../../../lib/feedback'

interface Values {
  command: string
  params: string
  timeoutSeconds?: number | null
  expireMinutes?: number | null
}

/** The server's limits: the wait for a device's final answer, and how long a queued command waits for an offline device. */
const MAX_TIMEOUT_S = 600
const MAX_EXPIRE_MIN = 10_080

/**
 * Sends one command to the selected devices: pick it from the catalogue, adjust its parameters
 * (starting from the command's example), confirm the number of devices (SPEC §8), send. Devices
 * that are offline get it when they come back, unless it times out first.
 */
export function SendCommandDialog({ devices, onClose }: { devices: readonly Pick<ApiRowOf<typeof iotEntities.iotDevice>, 'deviceId'>[]; onClose: () => void }) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const [form] = Form.useForm<Values>()
  const count = devices.length
  const commandSend = useMutation({
    mutationFn: (values: Values) =>
      iotApi.sendCommand({
        deviceIds: devices.map((d) => d.deviceId),
        command: values.command,
        params: parseJsonObject(values.params) ?? {},
        ...(values.timeoutSeconds ? { timeoutSeconds: values.timeoutSeconds } : {}),
        ...(values.expireMinutes ? { expireMinutes: values.expireMinutes } : {}),
      }),
    onSuccess: ({ data, msg }) => {
      void message.success(msg || t('iot.command.sent', { sent: data.sent, queued: data.queued }))
      onClose()
    },
  })

  const send = (values: Values) => {
    const spec = COMMANDS.find((c) => c.name === values.command)
    const label = spec ? localized(spec.label) : values.command
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('iot.command.confirm', { command: label, count }),
      okButtonProps: { danger: spec?.confirm === true },
      // Awaited: the confirmation stays open, its OK button loading, until the server has answered.
      onOk: async () => {
        try {
          await commandSend.mutateAsync(values)
        } catch {
          // The client showed why.
        }
      },
    })
  }

  return (
    <Modal
      open
      title={t('iot.command.title', { count })}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('iot.command.send')}
      okButtonProps={{ loading: commandSend.isPending }}
      destroyOnHidden
      mask={{ closable: false }}
      width={640}
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ params: '{}' }}
        onFinish={send}
        onValuesChange={(changed: Partial<Values>) => {
          if (changed.command === undefined) return
          const spec = COMMANDS.find((c) => c.name === changed.command)
          form.setFieldValue('params', toJsonText(spec?.example))
        }}
        data-testid="send-command-form"
      >
        <Form.Item name="command" label={t('iot.command.command')} rules={[{ required: true, message: t('iot.command.commandRequired') }]}>
          <Select
            showSearch={{ optionFilterProp: 'title' }}
            placeholder={t('iot.command.commandPlaceholder')}
            options={COMMANDS.map((c) => ({
              value: c.name,
              title: localized(c.label),
              label: (
                <span>
                  {localized(c.label)} {c.base ? null : <Tag>{t('iot.command.byFunction')}</Tag>}
                </span>
              ),
            }))}
            data-testid="send-command-select"
          />
        </Form.Item>
        <Form.Item name="params" label={t('iot.command.params')} rules={[jsonObjectRule(t)]} extra={t('iot.command.paramsHelp')}>
          <JsonEditor testId="send-command-params" />
        </Form.Item>
        <Space size="large" wrap align="start">
          <Form.Item name="timeoutSeconds" label={t('iot.command.timeout')} extra={t('iot.command.timeoutHelp')}>
            <InputNumber min={1} max={MAX_TIMEOUT_S} precision={0} style={{ width: 200 }} />
          </Form.Item>
          <Form.Item name="expireMinutes" label={t('iot.command.expire')} extra={t('iot.command.expireHelp')}>
            <InputNumber min={1} max={MAX_EXPIRE_MIN} precision={0} style={{ width: 200 }} />
          </Form.Item>
        </Space>
      </Form>
    </Modal>
  )
}
