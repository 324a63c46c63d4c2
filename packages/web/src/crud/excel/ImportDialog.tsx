import { useState } from 'react'
import { App, Checkbox, Modal, Typography, Upload } from 'antd'
import { DownloadOutlined, InboxOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import { IMPORT_EXTENSIONS, type ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { saveBlob } from '../../api/http'
import { localized } from '../../i18n'
import { crudApi, crudKeys } from '../api/crudApi'
import { fieldErrorsOf, showFailure } from '../api/fieldErrors'
import { ImportReport, type ImportOutcome } from './ImportReport'

const isSpreadsheet = (name: string) => (IMPORT_EXTENSIONS as readonly string[]).includes(name.slice(name.lastIndexOf('.') + 1).toLowerCase())

/**
 * Import from Excel (docs/entity-engine.md): the template, one .xls/.xlsx file, whether existing rows
 * are updated, then the counts or the rows to correct.
 */
export function ImportDialog({ entity, onClose }: { entity: ResolvedEntity; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const queryClient = useQueryClient()
  const [file, setFile] = useState<File | null>(null)
  const [updateSupport, setUpdateSupport] = useState(false)
  const [outcome, setOutcome] = useState<ImportOutcome | null>(null)
  const [busy, setBusy] = useState(false)
  const api = crudApi(entity)

  async function submit() {
    if (!file) {
      void message.warning(t('crud.importNoFile'))
      return
    }
    setBusy(true)
    try {
      setOutcome({ result: await api.import(file, updateSupport) })
      void message.success(t('crud.importSuccess'))
      void queryClient.invalidateQueries({ queryKey: crudKeys.all(entity) })
    } catch (error) {
      const errors = fieldErrorsOf(error)
      if (errors) setOutcome({ errors })
      else showFailure(error)
    } finally {
      setBusy(false)
    }
  }

  async function downloadTemplate() {
    try {
      const template = await api.importTemplate()
      saveBlob(template.blob, template.filename ?? `${entity.key}_template.xlsx`)
    } catch {
      // The client showed why.
    }
  }

  return (
    <Modal
      open
      title={t('crud.importTitle', { entity: localized(entity.label) })}
      okText={t('crud.import')}
      cancelText={t('common.cancel')}
      onOk={() => void submit()}
      confirmLoading={busy}
      onCancel={onClose}
      width={outcome?.errors ? 720 : 480}
      destroyOnHidden
    >
      <Upload.Dragger
        accept={IMPORT_EXTENSIONS.map((e) => `.${e}`).join(',')}
        maxCount={1}
        fileList={file ? [{ uid: 'import', name: file.name, status: 'done' }] : []}
        beforeUpload={(chosen) => {
          if (!isSpreadsheet(chosen.name)) {
            void message.error(t('crud.importFileOnly'))
            return Upload.LIST_IGNORE
          }
          setFile(chosen)
          setOutcome(null)
          return false // sent with the options when Import is pressed
        }}
        onRemove={() => {
          setFile(null)
          setOutcome(null)
        }}
        data-testid="import-file"
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('crud.importDrop')}</p>
        <p className="ant-upload-hint">{t('crud.importHint')}</p>
      </Upload.Dragger>
      <div className="crud-import-options">
        <Checkbox checked={updateSupport} onChange={(e) => setUpdateSupport(e.target.checked)} data-testid="import-update">
          {t('crud.updateSupport')}
        </Checkbox>
        <Typography.Link onClick={() => void downloadTemplate()} data-testid="import-template">
          <DownloadOutlined /> {t('crud.importTemplate')}
        </Typography.Link>
      </div>
      {outcome && <ImportReport entity={entity} outcome={outcome} />}
    </Modal>
  )
}
