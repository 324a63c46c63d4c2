import type { JobInfo } from '@velo/shared'

/** A job as the server answers it: a running export of the admin's, unless `over` says otherwise. */
export const jobInfo = (over: Partial<JobInfo> = {}): JobInfo => ({
  jobId: 1,
  kind: 'export',
  title: 'Export Login log',
  state: 'running',
  done: 0,
  total: null,
  result: null,
  error: null,
  fileName: null,
  mayDownload: false,
  createById: 1,
  createBy: 'admin',
  createTime: '2026-11-24T08:00:00Z',
  startTime: null,
  finishTime: null,
  attempts: 1,
  cancelRequested: false,
  ...over,
})
