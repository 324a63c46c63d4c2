import { registerTestJobKinds } from './test-kinds'

// The job system (docs/entity-engine.md, Jobs): kinds are defined once per process; the Jobs service
// of each app queues, cancels and runs them.
export { defineJobKind, jobKind, type JobContext, type JobKind } from './registry'
export { fileExpiry, jobInfo, Jobs, JOBS_PER_USER, SYSTEM_AUTH, SYSTEM_USER_ID, SYSTEM_USER_NAME, type JobRow, type ScheduleOptions } from './jobs'
export { isJobsFolderName, JOBS_FOLDER, mayReadJobOutput } from './output'
export {
  defineSchedule,
  type Every,
  everyMs,
  intervalHoursOf,
  nextScheduledRun,
  plannedRun,
  repeat,
  scheduleDef,
  scheduleDefs,
  type ScheduledWork,
  Scheduler,
  type ScheduleDef,
  type ScheduleRow,
  type SweepDef,
} from './schedule'
export { exportJob, registerExportSource, type ExportJobParams } from './export-job'
export { adoptUpload, importJob, INCOMING_FOLDER, registerImportSource, sweepIncoming, type ImportJobParams, type ImportJobProblems } from './import-job'

if (process.env.VELO_TEST_JOBS === '1') registerTestJobKinds()
