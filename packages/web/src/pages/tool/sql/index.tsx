import { useState } from 'react'
import { Alert, Button, Col, Empty, Flex, Row, Typography, theme } from 'antd'
import { ClearOutlined, DownloadOutlined, PlayCircleOutlined } from '@ant-design/icons'
import { useMutation, useQuery } from '@tanstack/react-query'
import { SQL_CONFIRM_WRITE_CODE, SQL_PERMISSIONS, type SqlRunResult } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { ApiError, feedbackText, saveBlob } from '../../../api/http'
import { failureMessage } from '../../../api/errors'
import { useAccessCheck } from '../../../session/Access'
import { CodeEditor } from '../../../lib/code/CodeEditor'
import { ConfirmWrite } from './ConfirmWrite'
import { SqlHistory } from './SqlHistory'
import { SqlResultTable, SqlSummary } from './SqlResult'
import { sqlApi, sqlKeys } from './sqlApi'
import '../../../crud/crud.css'
import { useFeedback } from '../../../lib/feedback'

/** Key caps are written the same in every language. */
const RUN_KEYS = 'Ctrl/Cmd + Enter'

/** What a failed call shows under the editor; null when there is nothing to show (cancelled, session ended). */
function errorText(error: unknown): string | null {
  if (!(error instanceof ApiError)) return failureMessage(error)
  // The session dialog already speaks for an ended session; a cancelled call needs no words.
  if (error.kind === 'canceled' || error.kind === 'session') return null
  return feedbackText(error)
}

/**
 * Tool system › SQL execution: write a statement, run it read-only (a write only after the server
 * asked and the user confirmed the statement), page through the answer, export it, pick up earlier
 * statements from the history. The server decides what may run; the page only follows its answers.
 */
export default function SqlPage() {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  const { message } = useFeedback()
  const may = useAccessCheck()
  const mayExecute = may({ permissions: [SQL_PERMISSIONS.execute] })
  const mayWrite = may({ permissions: [SQL_PERMISSIONS.write] })
  const mayExport = may({ permissions: [SQL_PERMISSIONS.export] })

  const [sql, setSql] = useState('')
  const [exporting, setExporting] = useState(false)
  const [result, setResult] = useState<SqlRunResult | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [pendingWrite, setPendingWrite] = useState<{ statement: string; reason: string } | null>(null)

  const schema = useQuery({ queryKey: sqlKeys.schema, queryFn: sqlApi.schema, staleTime: 5 * 60_000 })
  const history = useQuery({ queryKey: sqlKeys.history, queryFn: sqlApi.history })
  const hasStatement = sql.trim() !== ''

  const sqlRun = useMutation({
    mutationFn: ({ statement, write }: { statement: string; write: boolean }) => sqlApi.run(write ? { sql: statement, write: true } : { sql: statement }),
    onSuccess: (answer) => {
      setResult(answer)
      setPendingWrite(null)
    },
    onError: (failure, { statement, write }) => {
      if (!write && failure instanceof ApiError && failure.code === SQL_CONFIRM_WRITE_CODE) {
        setPendingWrite({ statement, reason: failure.message })
      } else {
        setPendingWrite(null)
        setResult(null)
        setError(errorText(failure))
      }
    },
    // The server keeps every run in the history, however it ended.
    onSettled: () => void history.refetch(),
  })

  function run(statement: string, write: boolean) {
    if (!mayExecute || sqlRun.isPending || statement.trim() === '') return
    setError(null)
    sqlRun.mutate({ statement, write })
  }

  async function exportResult() {
    if (!mayExport || exporting || !hasStatement) return
    setExporting(true)
    setError(null)
    try {
      const file = await sqlApi.export(sql)
      saveBlob(file.blob, file.filename ?? 'sql-result.xlsx')
      void message.success(t('tool.sql.exported'))
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setExporting(false)
    }
  }

  function clear() {
    setSql('')
    setResult(null)
    setError(null)
  }

  const notice = !mayExecute
    ? t('tool.sql.noticeNoExecute')
    : `${t('tool.sql.noticeRead')} ${t(mayWrite ? 'tool.sql.noticeMayWrite' : 'tool.sql.noticeNoWrite')}`
  const language = { kind: 'sql' as const, dialect: schema.data?.dialect, schema: schema.data?.tables }

  return (
    <div className="crud-page" data-testid="sql-page">
      <Row gutter={[token.margin, token.margin]}>
        <Col xs={24} xl={17}>
          <Flex vertical gap={token.marginSM}>
            <Alert type="info" showIcon title={notice} data-testid="sql-notice" />
            <CodeEditor
              value={sql}
              onChange={setSql}
              language={language}
              onSubmit={() => run(sql, false)}
              ariaLabel={t('tool.sql.editor')}
              testId="sql-editor"
              minHeight={180}
              maxHeight={420}
            />
            <Flex gap={token.marginXS} wrap align="center">
              {mayExecute && (
                <Button type="primary" icon={<PlayCircleOutlined />} loading={sqlRun.isPending} disabled={!hasStatement} onClick={() => run(sql, false)} data-testid="sql-run">
                  {t('tool.sql.run')}
                </Button>
              )}
              {mayExport && (
                <Button icon={<DownloadOutlined />} loading={exporting} disabled={!hasStatement} onClick={() => void exportResult()} data-testid="sql-export">
                  {t('tool.sql.export')}
                </Button>
              )}
              <Button icon={<ClearOutlined />} disabled={!hasStatement && !result && !error} onClick={clear} data-testid="sql-clear">
                {t('tool.sql.clear')}
              </Button>
              {mayExecute && <Typography.Text type="secondary">{t('tool.sql.shortcut', { keys: RUN_KEYS })}</Typography.Text>}
            </Flex>
            {error && <Alert type="error" showIcon title={error} closable={{ onClose: () => setError(null) }} data-testid="sql-error" />}
            {result ? (
              <Flex vertical gap={token.marginXS}>
                <SqlSummary result={result} />
                <SqlResultTable result={result} />
              </Flex>
            ) : (
              !error && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tool.sql.empty')} data-testid="sql-empty" />
            )}
          </Flex>
        </Col>
        <Col xs={24} xl={7}>
          <SqlHistory entries={history.data} loading={history.isLoading} onPick={setSql} />
        </Col>
      </Row>
      <ConfirmWrite
        statement={pendingWrite?.statement ?? null}
        reason={pendingWrite?.reason ?? ''}
        running={sqlRun.isPending}
        onConfirm={() => pendingWrite && run(pendingWrite.statement, true)}
        onCancel={() => setPendingWrite(null)}
      />
    </div>
  )
}
