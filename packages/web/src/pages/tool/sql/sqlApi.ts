import type { SqlHistoryEntry, SqlRunRequest, SqlRunResult, SqlSchemaAnswer } from '@velo/shared'
import { http, requestFile } from '../../../api/http'

// SQL execution's calls. Run and export are silent: the page shows their refusals under the editor
// (and asks about writes), so the client's red message would say the same thing twice.

export const sqlKeys = {
  history: ['tool', 'sql', 'history'] as const,
  schema: ['tool', 'sql', 'schema'] as const,
}

export const sqlApi = {
  run: (body: SqlRunRequest) => http.post<SqlRunResult>('/tool/sql/run', body, { silent: true }),
  export: (sql: string) => requestFile({ method: 'POST', url: '/tool/sql/export', data: { sql }, silent: true }),
  history: () => http.get<SqlHistoryEntry[]>('/tool/sql/history'),
  // Completion is a help, not the page: without it the editor still highlights and runs.
  schema: () => http.get<SqlSchemaAnswer>('/tool/sql/schema', undefined, { silent: true }),
}
