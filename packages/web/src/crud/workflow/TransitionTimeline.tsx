import { Empty, Spin, Space, Timeline, Typography } from 'antd'
import { ArrowRightOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import dayjs from 'dayjs'
import { historyStepLabel, type FieldDef, type ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { crudApi, crudKeys, type TransitionRecord } from '../api/crudApi'
import { DATETIME_FORMAT, OptionsCell } from '../kinds/cells'
import { kindOf } from '../kinds/kindTable'

/** A state as a tag in its colour, as the list shows the status. */
function StateTag({ entity, state }: { entity: ResolvedEntity; state: string }) {
  return <OptionsCell entity={entity} field={entity.fieldMap.get(entity.transitions!.field)!} value={state} row={{}} />
}

/** A recorded value no input field shows: a change as "from → to", other objects as JSON. */
function plainValue(v: unknown): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'from' in v && 'to' in v) {
    const { from, to } = v as { from: unknown; to: unknown }
    return `${from === null || from === '' ? '—' : plainValue(from)} → ${to === null || to === '' ? '—' : plainValue(to)}`
  }
  return v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/** What was entered with the step, each value labelled and shown as its input field's kind shows it. */
function RecordInput({ entity, record, fields }: { entity: ResolvedEntity; record: TransitionRecord; fields: readonly FieldDef[] }) {
  const entered = Object.keys(record.input)
  if (!entered.length) return null
  return (
    <dl className="crud-timeline-input">
      {entered.map((name) => {
        // A field the step no longer takes still shows, by its name; what a module recorded of the row's
        // own fields (a draft's changes, the approval a step cleared) by that field's label.
        const field = fields.find((f) => f.name === name)
        const Cell = field && kindOf(field).Cell
        const own = field ? undefined : entity.fieldMap.get(name)
        return (
          <div key={name}>
            <dt>{field ? localized(field.label) : own ? localized(own.label) : name}</dt>
            <dd>{field && Cell ? <Cell entity={entity} field={field} value={record.input[name]} row={record.input} /> : plainValue(record.input[name])}</dd>
          </div>
        )
      })}
    </dl>
  )
}

/** The steps a row went through, oldest first: the step, from → to, who and when, and what was entered. */
export function TransitionTimeline({ entity, id }: { entity: ResolvedEntity; id: unknown }) {
  const { t } = useTranslation()
  const history = useQuery({ queryKey: crudKeys.history(entity, id), queryFn: () => crudApi(entity).history(id), gcTime: 0 })
  if (!history.data) return <Spin spinning={history.isLoading} style={{ display: 'block', padding: 24 }} />
  if (!history.data.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.noHistory')} />
  const steps = entity.transitions?.steps ?? []
  return (
    <Timeline
      className="crud-timeline"
      data-testid="transition-timeline"
      items={history.data.map((record) => {
        const step = steps.find((s) => s.name === record.step)
        // A timed step (the engine's, by 'system') is labelled by its definition too; it takes no input.
        const label = historyStepLabel(entity, record.step)
        return {
          key: record.logId,
          content: (
            <div data-testid="transition-record">
              <Space size={8} wrap>
                <Typography.Text strong>{label ? localized(label) : record.step}</Typography.Text>
                {record.fromState !== record.toState && (
                  <>
                    <StateTag entity={entity} state={record.fromState} />
                    <ArrowRightOutlined />
                  </>
                )}
                <StateTag entity={entity} state={record.toState} />
              </Space>
              <div>
                <Typography.Text type="secondary">
                  {record.userName} · {dayjs(record.operTime).format(DATETIME_FORMAT)}
                </Typography.Text>
              </div>
              <RecordInput entity={entity} record={record} fields={step?.input ?? []} />
            </div>
          ),
        }
      })}
    />
  )
}
