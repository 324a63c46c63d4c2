import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { saveBlob } from '../../api/http'
import { startExportJob } from '../../api/jobs'
import { jobStore } from '../../api/jobStore'
import { localized } from '../../i18n'
import { formatCount } from '../../i18n/numbers'
import { crudApi, type Filters } from '../api/crudApi'
import { useFeedback } from '../../lib/feedback'

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** How often the progress message is redrawn while a large export streams in. */
const PROGRESS_INTERVAL_MS = 200
/**
 * Above this many rows the export runs as a job on the server: the browser does not hold a request
 * open for minutes, the user may leave the page, and the file is kept to download from the top bar.
 */
export const EXPORT_JOB_THRESHOLD = 50_000

/**
 * Export after a confirmation (SPEC §8): the list's current filters go to POST {path}/export, the
 * bytes received show while the streamed workbook arrives, and it is saved under the server's name.
 * When the list says more than EXPORT_JOB_THRESHOLD rows match, they go to POST {path}/export/job
 * instead, and the jobs button of the top bar opens on the new job.
 */
export function useExport(e: ResolvedEntity) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const key = `crud-export-${e.key}`

  const progress = (bytes: number) =>
    message.open({ key, type: 'loading', content: t('crud.exporting', { size: formatBytes(bytes) }), duration: 0 })

  async function run(filters: Filters) {
    void progress(0)
    let shownAt = 0
    try {
      const file = await crudApi(e).export(filters, (bytes) => {
        const now = Date.now()
        if (now - shownAt < PROGRESS_INTERVAL_MS) return
        shownAt = now
        void progress(bytes)
      })
      saveBlob(file.blob, file.filename ?? `${e.key}.xlsx`)
      void message.open({ key, type: 'success', content: t('crud.exportSuccess') })
    } catch {
      message.destroy(key) // the client showed why
    }
  }

  async function runAsJob(filters: Filters) {
    try {
      const { data, msg } = await startExportJob(e.path, filters)
      // The top bar's list opens on it and follows it on the tab's job stream.
      jobStore.started(data)
      void message.success(msg)
    } catch {
      // The client showed why.
    }
  }

  /** `total`: the rows the list says match; unknown keeps the direct download. */
  return (filters: Filters, total?: number) => {
    const asJob = total !== undefined && total > EXPORT_JOB_THRESHOLD
    modal.confirm({
      title: t('crud.confirmTitle'),
      // How many rows the file will hold, when the list knows (SPEC §8: the user confirms what they get).
      content: asJob
        ? t('crud.exportAsJob', { entity: localized(e.label), total: formatCount(total) })
        : total === undefined
          ? t('crud.exportConfirm', { entity: localized(e.label) })
          : t('crud.exportConfirmCount', { entity: localized(e.label), count: total, total: formatCount(total) }),
      onOk: () => {
        void (asJob ? runAsJob(filters) : run(filters))
      },
    })
  }
}
