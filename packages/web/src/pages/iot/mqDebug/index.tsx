import { useEffect, useRef, useState } from 'react'
import { Alert, Badge, Button, Card, Form, Input, Radio, Result, Space, Switch, Table, Tag, Tooltip } from 'antd'
import type { ColumnsType } from 'antd/es/table'
import { ClearOutlined, PauseCircleOutlined, PlayCircleOutlined, SendOutlined } from '@ant-design/icons'
import { isValidTopicFilter, isValidTopicName, UP_FILTER } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { eventData, useEventStream } from '../../../api/eventStream'
import { iotApi, type PublishRequest } from '../../../api/iot'
import { useAccess } from '../../../session/Access'
import { LiveIndicator } from '../LiveIndicator'
import { JsonEditor } from '../JsonEditor'
import { prettyJson } from '../json'
import '../../../crud/crud.css'
import '../iot.css'
import { useFeedback } from '../../../lib/feedback'

/** What the debugger keeps; older messages drop off the end. */
export const MESSAGE_LIMIT = 500
/** Messages arriving in a burst are drawn together, at most this often. */
export const FLUSH_MS = 250
export const DEFAULT_FILTER = UP_FILTER

interface ObservedMessage {
  topic: string
  /** At most the first 16 kB (`truncated` then says so). */
  payload: string
  qos: number
  retain: boolean
  time: string
  /** Bytes of the whole payload. */
  size?: number
  truncated?: boolean
}

interface ShownMessage extends ObservedMessage {
  key: number
}

let nextKey = 0

/** The newest messages first, at most `MESSAGE_LIMIT`. */
export function mergeMessages(shown: readonly ShownMessage[], arrived: readonly ShownMessage[]): ShownMessage[] {
  return [...[...arrived].reverse(), ...shown].slice(0, MESSAGE_LIMIT)
}

function PublishForm() {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const [form] = Form.useForm<PublishRequest>()
  const [publishing, setPublishing] = useState(false)

  const publish = (values: PublishRequest) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: (
        <Space orientation="vertical">
          <span>{t('iot.mq.publishConfirm', { topic: values.topic, qos: values.qos })}</span>
          {values.retain && <Alert type="warning" showIcon title={t('iot.mq.retainWarning')} />}
        </Space>
      ),
      onOk: async () => {
        setPublishing(true)
        try {
          const { msg } = await iotApi.publish({ ...values, payload: values.payload ?? '' })
          void message.success(msg || t('iot.mq.published'))
        } catch {
          // The client showed why.
        } finally {
          setPublishing(false)
        }
      },
    })

  return (
    <Card title={t('iot.mq.publishTitle')}>
      <Form<PublishRequest>
        form={form}
        layout="vertical"
        initialValues={{ topic: '', payload: '{\n  "v": 1\n}', qos: 1, retain: false }}
        onFinish={publish}
        data-testid="mq-publish-form"
      >
        <Form.Item
          name="topic"
          label={t('iot.mq.topic')}
          rules={[
            { required: true, message: t('iot.mq.topicRequired') },
            { validator: (_r, v: string) => (!v || isValidTopicName(v) ? Promise.resolve() : Promise.reject(new Error(t('iot.mq.topicInvalid')))) },
          ]}
        >
          <Input placeholder="velo/v1/{SN}/down/command" data-testid="mq-publish-topic" />
        </Form.Item>
        <Form.Item name="payload" label={t('iot.mq.payload')}>
          <JsonEditor rows={4} testId="mq-publish-payload" />
        </Form.Item>
        <Space size="large" wrap>
          <Form.Item name="qos" label={t('iot.mq.qos')}>
            <Radio.Group options={[0, 1].map((q) => ({ value: q, label: String(q) }))} optionType="button" />
          </Form.Item>
          <Form.Item name="retain" label={t('iot.mq.retain')} valuePropName="checked">
            <Switch />
          </Form.Item>
        </Space>
        <div>
          <Button type="primary" htmlType="submit" icon={<SendOutlined />} loading={publishing} data-testid="mq-publish">
            {t('iot.mq.publish')}
          </Button>
        </div>
      </Form>
    </Card>
  )
}

/**
 * Message-queue debugging (admin only): watch a topic filter live (newest first, the last 500,
 * pausable), and publish a test message to any topic after a confirmation.
 */
export default function MqDebugPage() {
  const { t } = useTranslation()
  const isAdmin = useAccess({ roles: ['admin'] })
  const [filter, setFilter] = useState(DEFAULT_FILTER)
  const [watched, setWatched] = useState<string | null>(null)
  const [messages, setMessages] = useState<ShownMessage[]>([])
  const [paused, setPaused] = useState(false)
  const [held, setHeld] = useState(0)
  /** Messages the server left out because too many arrived per second. */
  const [dropped, setDropped] = useState(0)
  const arrived = useRef<ShownMessage[]>([])

  const live = useEventStream('/iot/mqDebug/stream', {
    params: { topic: watched ?? '' },
    enabled: isAdmin && watched !== null,
    onEvent: (event) => {
      if (event.event === 'dropped') {
        const count = eventData<{ count: number }>(event)?.count ?? 0
        if (count > 0) setDropped((n) => n + count)
        return
      }
      if (event.event !== 'message') return
      const data = eventData<ObservedMessage>(event)
      if (!data) return
      arrived.current.push({ ...data, key: ++nextKey })
      if (arrived.current.length > MESSAGE_LIMIT) arrived.current.splice(0, arrived.current.length - MESSAGE_LIMIT)
    },
  })

  // Draw what arrived a few times a second; while paused, only count it.
  useEffect(() => {
    if (watched === null) return
    const timer = setInterval(() => {
      if (paused) return setHeld(arrived.current.length)
      if (!arrived.current.length) return
      const batch = arrived.current
      arrived.current = []
      setHeld(0)
      setMessages((shown) => mergeMessages(shown, batch))
    }, FLUSH_MS)
    return () => clearInterval(timer)
  }, [watched, paused])

  if (!isAdmin) return <Result status="403" subTitle={t('iot.mq.adminOnly')} />

  const filterValid = isValidTopicFilter(filter.trim())
  const subscribe = () => {
    if (!filterValid) return
    arrived.current = []
    setHeld(0)
    setDropped(0)
    setWatched(filter.trim())
  }
  const unsubscribe = () => {
    setWatched(null)
    setPaused(false)
  }

  const columns: ColumnsType<ShownMessage> = [
    { key: 'time', title: t('iot.mq.time'), width: 120, render: (_, m) => dayjs(m.time).format('HH:mm:ss.SSS') },
    { key: 'topic', title: t('iot.mq.topic'), dataIndex: 'topic' },
    { key: 'qos', title: t('iot.mq.qos'), dataIndex: 'qos', width: 60, align: 'center' },
    { key: 'retain', title: t('iot.mq.retain'), width: 80, align: 'center', render: (_, m) => (m.retain ? <Tag color="gold">{t('iot.mq.retained')}</Tag> : null) },
    {
      key: 'payload',
      title: t('iot.mq.payload'),
      render: (_, m) => (
        <>
          <pre className="iot-mq-payload">{m.truncated ? m.payload : prettyJson(m.payload)}</pre>
          {m.truncated && <Tag color="warning">{t('iot.mq.truncated', { shown: new TextEncoder().encode(m.payload).length, size: m.size ?? '?' })}</Tag>}
        </>
      ),
    },
  ]

  return (
    <div className="iot-page" data-testid="mq-debug">
      <Card title={t('iot.mq.watchTitle')}>
        <div className="crud-toolbar">
          <Space wrap>
            <Space.Compact>
              <Input
                value={filter}
                onChange={(e) => setFilter(e.target.value)}
                onPressEnter={subscribe}
                disabled={watched !== null}
                status={filterValid ? undefined : 'error'}
                style={{ width: 320 }}
                aria-label={t('iot.mq.filter')}
                placeholder={DEFAULT_FILTER}
                data-testid="mq-filter"
              />
              {watched === null ? (
                <Button type="primary" onClick={subscribe} disabled={!filterValid} data-testid="mq-subscribe">
                  {t('iot.mq.subscribe')}
                </Button>
              ) : (
                <Button onClick={unsubscribe} data-testid="mq-unsubscribe">
                  {t('iot.mq.unsubscribe')}
                </Button>
              )}
            </Space.Compact>
            {watched !== null && <LiveIndicator state={live} />}
            {!filterValid && <span className="ant-form-item-explain-error">{t('iot.mq.filterInvalid')}</span>}
          </Space>
          <Space wrap>
            <Badge count={held} overflowCount={MESSAGE_LIMIT} offset={[-4, 0]}>
              <Tooltip title={paused ? t('iot.mq.resumeHint') : t('iot.mq.pauseHint')}>
                <Button
                  icon={paused ? <PlayCircleOutlined /> : <PauseCircleOutlined />}
                  onClick={() => setPaused(!paused)}
                  disabled={watched === null}
                  data-testid="mq-pause"
                >
                  {paused ? t('iot.mq.resume') : t('iot.mq.pause')}
                </Button>
              </Tooltip>
            </Badge>
            {dropped > 0 && (
              <Tag color="warning" data-testid="mq-dropped">
                {t('iot.mq.dropped', { count: dropped })}
              </Tag>
            )}
            <Button
              icon={<ClearOutlined />}
              onClick={() => {
                setMessages([])
                setDropped(0)
              }}
              disabled={!messages.length && !dropped}
              data-testid="mq-clear"
            >
              {t('iot.mq.clear')}
            </Button>
            <span data-testid="mq-count">{t('iot.mq.count', { count: messages.length, limit: MESSAGE_LIMIT })}</span>
          </Space>
        </div>
        <Table<ShownMessage>
          size="small"
          rowKey="key"
          dataSource={messages}
          columns={columns}
          pagination={{ pageSize: 50, showSizeChanger: false, hideOnSinglePage: true }}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: watched === null ? t('iot.mq.notWatching') : t('iot.mq.waiting') }}
          data-testid="mq-messages"
        />
      </Card>
      <PublishForm />
    </div>
  )
}
