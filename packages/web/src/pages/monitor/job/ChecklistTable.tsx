import { Table, Tag, Typography } from 'antd'
import type { ChecklistResult } from '@velo/shared'
import { useTranslation } from 'react-i18next'

const RESULT_COLORS = { passed: 'success', failed: 'error', skipped: 'warning' } as const

type Clause = ChecklistResult['clauses'][number]

/** A checklist result (the device conformance kit's report): each check, how it ended, why, and the section it checks. */
export function ChecklistTable({ result }: { result: ChecklistResult }) {
  const { t } = useTranslation()
  return (
    <Table<Clause>
      data-testid="checklist-report"
      size="small"
      rowKey="id"
      pagination={false}
      dataSource={result.clauses}
      scroll={{ x: 'max-content' }}
      columns={[
        { key: 'result', title: t('jobs.checklist.result'), render: (_, c) => <Tag color={RESULT_COLORS[c.result]}>{t(`jobs.checklist.${c.result}`)}</Tag> },
        { key: 'title', title: t('jobs.checklist.check'), render: (_, c) => <Typography.Text strong>{c.title}</Typography.Text> },
        { key: 'reason', title: t('jobs.checklist.reason'), dataIndex: 'reason' },
        { key: 'section', title: t('jobs.checklist.section'), render: (_, c) => <Typography.Text type="secondary">{c.section.ref}</Typography.Text> },
      ]}
    />
  )
}
