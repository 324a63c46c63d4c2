import { useState } from 'react'
import { Button } from 'antd'
import { DownloadOutlined, EditOutlined, EyeOutlined, ImportOutlined, SyncOutlined } from '@ant-design/icons'
import { GEN_PERMISSIONS, toolEntities, type ApiRowOf } from '@velo/shared'
import { useNavigate } from 'react-router'
import { useTranslation } from 'react-i18next'
import { useAccess } from '../../../session/Access'
import { EntityListPage } from '../../../crud/EntityListPage'
import { genApi, genEditPath } from './genApi'
import { ImportDialog } from './ImportDialog'
import { PreviewDialog } from './PreviewDialog'
import { useFeedback } from '../../../lib/feedback'

const genTable = toolEntities.genTable
type GenRow = ApiRowOf<typeof genTable>

/**
 * Code generation (RuoYi's 代码生成): the imported tables, with Import in the toolbar and, per row,
 * Preview, Edit, Sync with the database and Download; Delete is the list's own.
 */
export default function GenListPage() {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const navigate = useNavigate()
  const mayImport = useAccess({ permissions: [GEN_PERMISSIONS.import] })
  const mayPreview = useAccess({ permissions: [GEN_PERMISSIONS.preview] })
  const mayEdit = useAccess({ permissions: [GEN_PERMISSIONS.edit] })
  const mayDownload = useAccess({ permissions: [GEN_PERMISSIONS.download] })
  const [importing, setImporting] = useState<{ refresh: () => void } | null>(null)
  const [previewing, setPreviewing] = useState<GenRow | null>(null)

  const sync = (row: GenRow, refresh: () => void) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('gen.syncConfirm', { table: row.tableName }),
      onOk: async () => {
        try {
          await genApi.sync(row.tableId)
          void message.success(t('gen.synced'))
          refresh()
        } catch {
          // The client showed why (the table is gone from the database).
        }
      },
    })

  const download = async (row: GenRow) => {
    try {
      await genApi.download(row.tableId, row.entityKey || row.tableName)
    } catch {
      // The client showed why.
    }
  }

  return (
    <>
      <EntityListPage
        entity={genTable}
        toolbarActions={(list) =>
          mayImport && (
            <Button type="primary" ghost icon={<ImportOutlined />} onClick={() => setImporting({ refresh: list.refresh })} data-testid="gen-import">
              {t('gen.import')}
            </Button>
          )
        }
        rowActions={(row, list) => [
          mayPreview && { key: 'genPreview', label: t('gen.preview'), icon: <EyeOutlined />, onClick: () => setPreviewing(row), testId: 'row-gen-preview' },
          mayEdit && { key: 'genEdit', label: t('gen.edit'), icon: <EditOutlined />, onClick: () => void navigate(genEditPath(row.tableId)), testId: 'row-gen-edit' },
          mayEdit && { key: 'genSync', label: t('gen.sync'), icon: <SyncOutlined />, onClick: () => sync(row, list.refresh), testId: 'row-gen-sync' },
          mayDownload && { key: 'genDownload', label: t('gen.download'), icon: <DownloadOutlined />, onClick: () => void download(row), testId: 'row-gen-download' },
        ]}
      />
      {importing && <ImportDialog onClose={() => setImporting(null)} onImported={importing.refresh} />}
      {previewing && <PreviewDialog tableId={previewing.tableId} tableName={previewing.tableName} onClose={() => setPreviewing(null)} />}
    </>
  )
}
