import { useState } from 'react'
import { Alert, Button, Checkbox, Modal, Popconfirm, Progress, Typography, Upload } from 'antd'
import { DownloadOutlined, InboxOutlined } from '@ant-design/icons'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { IMPORT_EXTENSIONS, type JobInfo, type ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { saveBlob } from '../../api/http'
import { cancelJob } from '../../api/jobs'
import { jobStore } from '../../api/jobStore'
import { localized } from '../../i18n'
import { formatCount } from '../../i18n/numbers'
import { crudApi, type ImportResult } from '../api/crudApi'
import { refreshAfterChange } from '../api/refresh'
import { fieldErrorsOf, showFailure } from '../api/fieldErrors'
import { ImportReport } from './ImportReport'
import { IMPORT_JOB_THRESHOLD_BYTES, type ImportJobEnd, importJobEnd, startImportJob, useImportJob } from './useImportJob'
import { useFeedback } from '../../lib/feedback'
import './importTexts'

const isSpreadsheet = (name: string) => (IMPORT_EXTENSIONS as readonly string[]).includes(name.slice(name.lastIndexOf('.') + 1).toLowerCase())

/** What the dialog shows under the file: the counts or the rows to correct, or why a job ended without them. */
type Shown = ImportJobEnd

/**
 * Import from Excel (docs/entity-engine.md): the template, one .xls/.xlsx file, whether existing rows
 * are updated, then the counts or the rows to correct. A file larger than IMPORT_JOB_THRESHOLD_BYTES
 * is imported as a job (docs/jobs.md): its progress shows here live, and the dialog may be closed
 * while it runs (the top bar's jobs list follows it); when it ends, the same counts or rows show.
 */
export function ImportDialog({ entity, onClose }: { entity: ResolvedEntity; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()
  const [file, setFile] = useState<File | null>(null)
  const [updateSupport, setUpdateSupport] = useState(false)
  const [shown, setShown] = useState<Shown | null>(null)
  const api = crudApi(entity)

  const succeeded = () => {
    void message.success(t('crud.importSuccess'))
    void refreshAfterChange(queryClient, entity)
  }
  const importJob = useImportJob((job: JobInfo) => {
    const end = importJobEnd(job)
    setShown(end)
    if (end && 'outcome' in end && end.outcome.result) succeeded()
  })
  const running = importJob.active ? importJob.job : null

  const fileImport = useMutation({
    /** A large file's queued job, or a small file's counts. */
    mutationFn: async ({ chosen, update }: { chosen: File; update: boolean }): Promise<{ job: JobInfo } | { result: ImportResult }> =>
      chosen.size > IMPORT_JOB_THRESHOLD_BYTES ? { job: (await startImportJob(entity.path, chosen, update)).data } : { result: await api.import(chosen, update) },
    onSuccess: (answer) => {
      if ('job' in answer) {
        importJob.follow(answer.job)
        return
      }
      setShown({ outcome: { result: answer.result } })
      succeeded()
    },
    onError: (error) => {
      const errors = fieldErrorsOf(error)
      if (errors) setShown({ outcome: { errors } })
      else showFailure(error)
    },
  })

  function submit() {
    if (!file) {
      void message.warning(t('crud.importNoFile'))
      return
    }
    setShown(null)
    fileImport.mutate({ chosen: file, update: updateSupport })
  }

  async function stop(job: JobInfo) {
    try {
      const { data, msg } = await cancelJob(job.jobId)
      importJob.update(data)
      void message.info(msg)
    } catch {
      // The client showed why.
    }
  }

  function close() {
    // Still running: it goes on, and the top bar's jobs list, opened on it, follows it from here.
    if (running) jobStore.started(running)
    onClose()
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
      onOk={submit}
      confirmLoading={fileImport.isPending}
      // Not loading while a job runs: a loading dialog cannot be closed, and this one may be.
      okButtonProps={{ disabled: running !== null }}
      onCancel={close}
      cancelText={running ? t('crud.importJobClose') : t('common.cancel')}
      width={shown && 'outcome' in shown && shown.outcome.errors ? 720 : 480}
      destroyOnHidden
    >
      <Upload.Dragger
        accept={IMPORT_EXTENSIONS.map((e) => `.${e}`).join(',')}
        disabled={running !== null}
        maxCount={1}
        fileList={file ? [{ uid: 'import', name: file.name, status: 'done' }] : []}
        beforeUpload={(chosen) => {
          if (!isSpreadsheet(chosen.name)) {
            void message.error(t('crud.importFileOnly'))
            return Upload.LIST_IGNORE
          }
          setFile(chosen)
          setShown(null)
          importJob.forget()
          return false // sent with the options when Import is pressed
        }}
        onRemove={() => {
          setFile(null)
          setShown(null)
          importJob.forget()
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
      {running && (
        <div style={{ marginBottom: 12 }} data-testid="import-job">
          <Typography.Paragraph type="secondary">{t('crud.importJobRunning')}</Typography.Paragraph>
          <Progress
            percent={running.total ? Math.min(100, Math.floor((running.done * 100) / running.total)) : 0}
            status="active"
            format={() => (running.total === null ? t(`jobs.state.${running.state}`) : t('jobs.progress', { done: formatCount(running.done), total: formatCount(running.total) }))}
          />
          {running.cancelRequested ? (
            <Typography.Text type="secondary">{t('jobs.cancelling')}</Typography.Text>
          ) : (
            <Popconfirm title={t('crud.importJobStopConfirm')} onConfirm={() => stop(running)} okText={t('crud.importJobStop')} cancelText={t('jobs.keep')}>
              <Button size="small" danger data-testid="import-job-stop">
                {t('crud.importJobStop')}
              </Button>
            </Popconfirm>
          )}
        </div>
      )}
      {shown && 'outcome' in shown && <ImportReport entity={entity} outcome={shown.outcome} />}
      {shown && 'failure' in shown && <Alert type="error" showIcon title={shown.failure} data-testid="import-failed" />}
      {shown && 'cancelled' in shown && <Alert type="warning" showIcon title={t('crud.importJobCancelled')} data-testid="import-cancelled" />}
    </Modal>
  )
}
