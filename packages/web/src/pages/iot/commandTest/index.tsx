import { useState } from 'react'
import { Alert, Button, Card, Col, Descriptions, Empty, Form, InputNumber, Row, Select, Space, Spin, Table, Tag } from 'antd'
import type { ColumnsType } from 'antd/es/table'
import { ClearOutlined, SendOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import { COMMANDS, type DeviceCommandOption, iotEntities } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { failureMessage } from '../../../api/errors'
import { iotApi, labelText } from '../../../api/iot'
import { useAccess } from '../../../session/Access'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import { useEntityChoices } from '../../../crud/kinds/options'
import { CommandStatusTag } from '../CommandStatusTag'
import { JsonEditor, jsonObjectRule } from '../JsonEditor'
import { parseJsonObject, prettyJson, toJsonText } from '../json'
import { clearHistory, recordSend, testHistory, type TestSend } from './history'
import '../../../crud/crud.css'
import '../iot.css'
import { useFeedback } from '../../../lib/feedback'

const SEND = 'iot:commandTest:send'
export const DEFAULT_TIMEOUT_S = 10
/** The server waits at most this long for a test command (inside the console's 120 s request timeout). */
export const MAX_TIMEOUT_S = 100

interface Values {
  deviceId?: number
  command?: string
  params: string
  timeoutSeconds: number
}

const commandLabel = (name: string, supported?: readonly DeviceCommandOption[]) => {
  const label = supported?.find((c) => c.name === name)?.label ?? COMMANDS.find((c) => c.name === name)?.label
  return label ? labelText(label) : name
}

/** How the server's summary of an outcome is shown. */
const ALERT_TYPE: Record<string, 'success' | 'info' | 'warning' | 'error'> = { succeeded: 'success', failed: 'error', timedOut: 'warning', expired: 'warning' }

function Outcome({ send }: { send: TestSend }) {
  const { t } = useTranslation()
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="command-result">
      {send.error ? (
        <Alert type="error" showIcon title={send.error} />
      ) : send.message ? (
        <Alert type={ALERT_TYPE[send.status ?? ''] ?? 'info'} showIcon title={send.message} data-testid="command-message" />
      ) : null}
      <Descriptions
        bordered
        size="small"
        column={1}
        items={[
          { key: 'status', label: t('iot.test.status'), children: send.status ? <CommandStatusTag status={send.status} /> : <Tag color="error">{t('iot.test.notSent')}</Tag> },
          {
            key: 'rtt',
            label: t('iot.test.roundTrip'),
            children: <span data-testid="command-rtt">{send.roundTripMs === null ? t('iot.test.noReply') : t('iot.test.ms', { ms: send.roundTripMs })}</span>,
          },
          { key: 'requestId', label: t('iot.test.requestId'), children: send.requestId ?? '' },
        ]}
      />
      <div>
        <div className="ant-form-item-label">{t('iot.test.reply')}</div>
        {send.reply ? (
          <pre className="crud-json" data-testid="command-reply">
            {prettyJson(send.reply)}
          </pre>
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('iot.test.noReply')} />
        )}
      </div>
    </Space>
  )
}

/**
 * The command test: one device, one command from those it supports, parameters as JSON (from the
 * command's example), a timeout. Sending waits for the device's answer and shows the status, the
 * reply and the round trip; the sends of this session stay in a table below.
 */
export default function CommandTestPage() {
  const { t } = useTranslation()
  const { modal } = useFeedback()
  const [form] = Form.useForm<Values>()
  const deviceId = Form.useWatch('deviceId', form)
  const devices = useEntityChoices(iotEntities.iotDevice)
  const supported = useQuery({
    queryKey: ['iot', 'deviceCommands', deviceId],
    queryFn: () => iotApi.deviceCommands(deviceId!),
    enabled: typeof deviceId === 'number',
  })
  const maySend = useAccess({ permissions: [SEND] })
  const [sending, setSending] = useState<number | null>(null)
  const [last, setLast] = useState<TestSend | null>(null)
  const sends = testHistory.use((s) => s.sends)

  const snOf = (id: number) => devices.options.find((o) => o.value === id)?.label ?? String(id)

  async function run(values: Required<Values>) {
    const started = {
      at: new Date().toISOString(),
      deviceId: values.deviceId,
      sn: snOf(values.deviceId),
      command: values.command,
      params: values.params,
    }
    setSending(values.timeoutSeconds)
    try {
      const { data: outcome, msg } = await iotApi.testCommand({
        deviceId: values.deviceId,
        command: values.command,
        params: parseJsonObject(values.params) ?? {},
        timeoutSeconds: values.timeoutSeconds,
      })
      setLast(
        recordSend({
          ...started,
          status: outcome.status,
          message: msg || null,
          error: null,
          requestId: outcome.requestId,
          reply: outcome.reply,
          roundTripMs: outcome.roundTripMs,
        }),
      )
    } catch (error) {
      setLast(recordSend({ ...started, status: null, message: null, error: failureMessage(error), requestId: null, reply: null, roundTripMs: null }))
    } finally {
      setSending(null)
    }
  }

  const submit = (values: Values) => {
    const ready = values as Required<Values>
    const spec = supported.data?.find((c) => c.name === ready.command)
    if (!spec?.confirm) return void run(ready)
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('iot.test.confirm', { command: commandLabel(ready.command, supported.data), sn: snOf(ready.deviceId) }),
      okButtonProps: { danger: true },
      onOk: () => void run(ready),
    })
  }

  const columns: ColumnsType<TestSend> = [
    { key: 'at', title: t('iot.test.time'), render: (_, s) => dayjs(s.at).format(DATETIME_FORMAT) },
    { key: 'sn', title: t('iot.test.device'), dataIndex: 'sn' },
    { key: 'command', title: t('iot.test.command'), render: (_, s) => commandLabel(s.command) },
    { key: 'status', title: t('iot.test.status'), render: (_, s) => (s.status ? <CommandStatusTag status={s.status} /> : <Tag color="error">{t('iot.test.notSent')}</Tag>) },
    { key: 'rtt', title: t('iot.test.roundTrip'), align: 'right', render: (_, s) => (s.roundTripMs === null ? '' : t('iot.test.ms', { ms: s.roundTripMs })) },
    { key: 'requestId', title: t('iot.test.requestId'), render: (_, s) => s.requestId ?? s.error ?? '' },
  ]

  return (
    <div className="iot-page" data-testid="command-test">
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={11}>
          <Card title={t('iot.test.title')}>
            <Form<Values>
              form={form}
              layout="vertical"
              initialValues={{ params: '{}', timeoutSeconds: DEFAULT_TIMEOUT_S }}
              onFinish={submit}
              onValuesChange={(changed: Partial<Values>) => {
                if ('deviceId' in changed) form.setFieldsValue({ command: undefined, params: '{}' })
                if (changed.command !== undefined) {
                  const spec = supported.data?.find((c) => c.name === changed.command) ?? COMMANDS.find((c) => c.name === changed.command)
                  form.setFieldValue('params', toJsonText(spec?.example))
                }
              }}
              data-testid="command-test-form"
            >
              <Form.Item name="deviceId" label={t('iot.test.device')} rules={[{ required: true, message: t('iot.test.deviceRequired') }]}>
                <Select
                  showSearch={{ optionFilterProp: 'label' }}
                  loading={devices.loading}
                  placeholder={t('iot.test.devicePlaceholder')}
                  options={devices.options.map((o) => ({ value: o.value as number, label: o.label }))}
                  data-testid="command-test-device"
                />
              </Form.Item>
              <Form.Item name="command" label={t('iot.test.command')} rules={[{ required: true, message: t('iot.test.commandRequired') }]}>
                <Select
                  disabled={typeof deviceId !== 'number'}
                  loading={supported.isFetching}
                  placeholder={t(typeof deviceId === 'number' ? 'iot.test.commandPlaceholder' : 'iot.test.deviceFirst')}
                  notFoundContent={supported.isError ? t('iot.test.commandsFailed') : undefined}
                  options={(supported.data ?? []).map((c) => ({
                    value: c.name,
                    label: (
                      <span>
                        {labelText(c.label)} {c.confirm ? <Tag color="warning">{t('iot.test.confirmed')}</Tag> : null}
                      </span>
                    ),
                  }))}
                  data-testid="command-test-command"
                />
              </Form.Item>
              <Form.Item name="params" label={t('iot.test.params')} rules={[jsonObjectRule(t)]} extra={t('iot.test.paramsHelp')}>
                <JsonEditor testId="command-test-params" />
              </Form.Item>
              <Form.Item name="timeoutSeconds" label={t('iot.test.timeout')} rules={[{ required: true, message: t('iot.test.timeoutRequired') }]}>
                <InputNumber min={1} max={MAX_TIMEOUT_S} precision={0} style={{ width: 200 }} suffix={t('iot.test.seconds')} />
              </Form.Item>
              {maySend && (
                <Button type="primary" htmlType="submit" icon={<SendOutlined />} loading={sending !== null} data-testid="command-test-send">
                  {t('iot.test.send')}
                </Button>
              )}
            </Form>
          </Card>
        </Col>
        <Col xs={24} lg={13}>
          <Card title={t('iot.test.result')}>
            {sending !== null ? (
              <div className="iot-waiting" data-testid="command-test-waiting">
                <Spin />
                <span>{t('iot.test.waiting', { seconds: sending })}</span>
              </div>
            ) : last ? (
              <Outcome send={last} />
            ) : (
              <Empty description={t('iot.test.nothingYet')} />
            )}
          </Card>
        </Col>
      </Row>
      <Card
        title={t('iot.test.history')}
        extra={
          <Button icon={<ClearOutlined />} disabled={!sends.length} onClick={clearHistory} data-testid="command-test-clear">
            {t('iot.test.clear')}
          </Button>
        }
      >
        <Table<TestSend>
          size="small"
          rowKey="key"
          dataSource={[...sends]}
          columns={columns}
          pagination={false}
          scroll={{ x: 'max-content' }}
          expandable={{
            expandedRowRender: (s) => (
              <Row gutter={16}>
                <Col xs={24} md={12}>
                  <div className="ant-form-item-label">{t('iot.test.params')}</div>
                  <pre className="crud-json">{prettyJson(s.params)}</pre>
                </Col>
                <Col xs={24} md={12}>
                  <div className="ant-form-item-label">{t('iot.test.reply')}</div>
                  <pre className="crud-json">{s.reply ? prettyJson(s.reply) : (s.error ?? t('iot.test.noReply'))}</pre>
                </Col>
              </Row>
            ),
          }}
          data-testid="command-test-history"
        />
      </Card>
    </div>
  )
}
