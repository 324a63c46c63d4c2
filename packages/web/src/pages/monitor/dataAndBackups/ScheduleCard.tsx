import { Button, Card, Descriptions, Space, Tag, Typography } from 'antd'
import { PlayCircleOutlined } from '@ant-design/icons'
import { isFinalJobState, type MaintenanceSchedule } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import { STATE_COLORS } from '../job/jobList'
import { ConfigKey } from './ConfigKey'
import { runSummary, SCHEDULE_STARTER } from './runs'

const time = (value: string | null) => (value ? dayjs(value).format(DATETIME_FORMAT) : '–')

interface ScheduleCardProps {
  schedule: MaintenanceSchedule
  /** Run now is offered (the caller holds monitor:data:run). */
  mayRun: boolean
  onRun: (schedule: MaintenanceSchedule) => void
}

/** One maintenance schedule: how often it runs and where that is set, when next, and how its last run went. */
export function ScheduleCard({ schedule, mayRun, onRun }: ScheduleCardProps) {
  const { t } = useTranslation()
  const run = schedule.lastRun
  const unfinished = !!run && !isFinalJobState(run.state)
  const summary = run?.state === 'succeeded' ? runSummary(schedule, t) : null

  return (
    <Card
      size="small"
      title={t(`monitorData.schedule.${schedule.key}`)}
      extra={
        mayRun && (
          <Button size="small" type="primary" icon={<PlayCircleOutlined />} disabled={unfinished} onClick={() => onRun(schedule)} data-testid={`schedule-run-${schedule.key}`}>
            {t('monitorData.runNow')}
          </Button>
        )
      }
      data-testid={`schedule-${schedule.key}`}
    >
      <Descriptions size="small" column={1}>
        <Descriptions.Item label={t('monitorData.schedule.interval')}>
          <span data-testid={`schedule-interval-${schedule.key}`}>
            {schedule.intervalHours > 0 ? t('monitorData.schedule.every', { hours: schedule.intervalHours }) : <Tag>{t('monitorData.schedule.off')}</Tag>}
          </span>
        </Descriptions.Item>
        <Descriptions.Item label={t('monitorData.schedule.setIn')}>
          <ConfigKey name={schedule.configKey} />
        </Descriptions.Item>
        <Descriptions.Item label={t('monitorData.schedule.nextRun')}>{time(schedule.nextRunTime)}</Descriptions.Item>
        <Descriptions.Item label={t('monitorData.schedule.lastRun')}>
          {run ? (
            <Space size="small" wrap>
              <span data-testid={`schedule-state-${schedule.key}`} data-state={run.state}>
                <Tag color={STATE_COLORS[run.state]}>{t(`jobs.state.${run.state}`)}</Tag>
              </span>
              <span>{run.createBy === SCHEDULE_STARTER ? t('monitorData.bySchedule') : run.createBy}</span>
              <Typography.Text type="secondary">{time(run.finishTime ?? run.createTime)}</Typography.Text>
            </Space>
          ) : (
            <Typography.Text type="secondary">{t('monitorData.schedule.never')}</Typography.Text>
          )}
        </Descriptions.Item>
        {summary && (
          <Descriptions.Item label={t('monitorData.schedule.result')}>
            <span data-testid={`schedule-result-${schedule.key}`}>{summary}</span>
          </Descriptions.Item>
        )}
        {run?.error && (
          <Descriptions.Item label={t('jobs.column.error')}>
            <Typography.Text type="danger">{run.error}</Typography.Text>
          </Descriptions.Item>
        )}
      </Descriptions>
    </Card>
  )
}
