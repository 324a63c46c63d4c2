import { Card, Empty, Flex, Spin, Tag, Typography, theme } from 'antd'
import type { SqlHistoryEntry } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'

const OUTCOME_COLORS: Record<SqlHistoryEntry['outcome'], string> = {
  ok: 'success',
  error: 'error',
  refused: 'warning',
  timeout: 'orange',
}

interface SqlHistoryProps {
  entries: SqlHistoryEntry[] | undefined
  loading: boolean
  onPick: (sql: string) => void
}

/** The user's recent statements, newest first; picking one puts it back into the editor. */
export function SqlHistory({ entries, loading, onPick }: SqlHistoryProps) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  return (
    <Card size="small" title={t('tool.sql.history')} data-testid="sql-history" styles={{ body: { padding: 0, maxHeight: 640, overflow: 'auto' } }}>
      {loading && !entries ? (
        <Flex justify="center" style={{ padding: token.padding }}>
          <Spin />
        </Flex>
      ) : !entries?.length ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tool.sql.historyEmpty')} />
      ) : (
        entries.map((entry) => (
          <div
            key={entry.historyId}
            role="button"
            tabIndex={0}
            title={t('tool.sql.historyPick')}
            data-testid="sql-history-item"
            onClick={() => onPick(entry.sql)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault()
                onPick(entry.sql)
              }
            }}
            style={{ padding: `${token.paddingXS}px ${token.paddingSM}px`, borderBottom: `1px solid ${token.colorSplit}`, cursor: 'pointer' }}
          >
            <Typography.Paragraph code ellipsis={{ rows: 2 }} style={{ marginBottom: token.marginXXS, fontSize: token.fontSizeSM }}>
              {entry.sql}
            </Typography.Paragraph>
            <Flex gap={token.marginXS} wrap align="center" style={{ fontSize: token.fontSizeSM, color: token.colorTextSecondary }}>
              <Tag color={OUTCOME_COLORS[entry.outcome]} style={{ marginInlineEnd: 0 }}>
                {t(`tool.sql.outcome.${entry.outcome}`)}
              </Tag>
              {entry.mode === 'write' && (
                <Tag color="volcano" style={{ marginInlineEnd: 0 }}>
                  {t('tool.sql.mode.write')}
                </Tag>
              )}
              {entry.rowCount !== null && <span>{t('tool.sql.historyRows', { count: entry.rowCount })}</span>}
              <span>{entry.durationMs} ms</span>
              <span>{dayjs(entry.createTime).format(DATETIME_FORMAT)}</span>
            </Flex>
          </div>
        ))
      )}
    </Card>
  )
}
