import { Alert, Table } from 'antd'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import type { ImportResult } from '../api/crudApi'
import type { FieldError } from '../api/fieldErrors'
import './importTexts'

export type ImportOutcome = { result: ImportResult; errors?: undefined } | { errors: FieldError[]; result?: undefined }

/**
 * What an import did: the counts, or — since an import with any bad row writes nothing — every
 * problem by spreadsheet row and column, so the file can be corrected in one go.
 */
export function ImportReport({ entity, outcome }: { entity: ResolvedEntity; outcome: ImportOutcome }) {
  const { t } = useTranslation()
  if (outcome.result) {
    return <Alert type="success" showIcon title={t('crud.importDone', { inserted: outcome.result.inserted, updated: outcome.result.updated })} data-testid="import-done" />
  }
  const columnOf = (field: string) => {
    const def = entity.fieldMap.get(field)
    return def ? localized(def.label) : field
  }
  return (
    <div data-testid="import-report">
      <Alert type="error" showIcon title={t('crud.importRejected', { count: outcome.errors.length })} style={{ marginBottom: 12 }} />
      <Table<FieldError>
        size="small"
        rowKey={(e) => `${e.row ?? ''}:${e.field}:${e.message}`}
        dataSource={outcome.errors}
        pagination={outcome.errors.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
        columns={[
          { key: 'row', dataIndex: 'row', title: t('crud.importRow'), width: 70 },
          { key: 'field', dataIndex: 'field', title: t('crud.importField'), width: 160, render: (field: string) => columnOf(field) },
          { key: 'message', dataIndex: 'message', title: t('crud.importProblem') },
        ]}
      />
    </div>
  )
}
