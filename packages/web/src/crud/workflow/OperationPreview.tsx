import { Alert, Descriptions, Spin, Typography } from 'antd'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { ResolvedEntity } from '@velo/shared'
import { crudKeys, type Row } from '../api/crudApi'
import { previewOperation, type Operation } from './operations'

/** How long the input rests before its preview is asked again. */
export const PREVIEW_DEBOUNCE_MS = 300

/**
 * The preview of an action with `preview` for `body` (the input as it would be sent, debounced by the
 * dialog): POST {action route}/preview. Keyed by the body, so only the latest answer counts (an
 * older request is aborted once nothing waits for it); the last facts stay while the next load.
 */
export function useOperationPreview(entity: ResolvedEntity, operation: Operation, rows: readonly Row[], body: Row | null) {
  const ids = rows.map((r) => r[entity.idField])
  return useQuery({
    queryKey: [...crudKeys.all(entity), 'preview', operation.name, ids, body],
    queryFn: ({ signal }) => previewOperation(entity, operation, rows, body ?? {}, signal),
    // null: the input is not complete yet, so there is nothing to ask about.
    enabled: operation.preview && body !== null,
    placeholderData: keepPreviousData,
    retry: false,
    gcTime: 0,
  })
}

/**
 * What the action would do, under the dialog's form: its facts as a compact table (values as code:
 * formats, examples, ranges), and its warning in orange. A refused preview (400: an input is not
 * complete yet) shows nothing, as the fields' own rules say what is wrong.
 */
export function OperationPreview({ preview }: { preview: ReturnType<typeof useOperationPreview> }) {
  const answer = preview.isError ? undefined : preview.data
  if (!answer && !preview.isFetching) return null
  return (
    <Spin spinning={preview.isFetching} size="small">
      <div className="crud-operation-preview">
        {answer && answer.facts.length > 0 && (
          <Descriptions
            bordered
            size="small"
            column={1}
            data-testid="operation-preview"
            items={answer.facts.map((fact, i) => ({
              key: i,
              label: fact.label,
              children: <Typography.Text code>{fact.value}</Typography.Text>,
            }))}
          />
        )}
        {answer?.warning && <Alert type="warning" showIcon title={answer.warning} data-testid="operation-preview-warning" />}
      </div>
    </Spin>
  )
}
