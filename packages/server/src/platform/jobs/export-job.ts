import { type FieldDef, type Language } from '@velo/shared'
import { entityName, entitySources } from './sources'
import { dynamicDb } from '../../db/database'
import { AppError, forbidden } from '../errors'
import { yieldWhenDue } from '../../lib/event-loop'
import { t } from '../i18n'
import { hasPermission } from '../rbac/auth-context'
import { resolveRowScope } from '../rbac/data-scope'
import { streamWorkbookRows } from '../crud/excel'
import { dictLabels, sortColumn } from '../crud/repository'
import { countRows } from '../observability/metrics'
import { defineJobKind } from './registry'
import { exactSearchFields, maskRowArrays, privacyViewOf } from '../privacy/masking'

/** What POST {path}/export/job queues: the export's body as validated, and the language of its headers. */
export interface ExportJobParams {
  entity: string
  body: Record<string, unknown>
  lang: Language
}

const sources = entitySources()

/** Called where an entity's export route is registered, so a job can run the same export. */
export const registerExportSource = sources.register

const dictTypesOf = (fields: readonly FieldDef[]) => fields.flatMap((f) => (f.kind === 'dict' ? [f.dict] : []))
const stamp = () => new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')

/**
 * POST {path}/export as a job: the same rows (the starter's filters, within the starter's data scope as
 * it is when the job runs) in the same workbook, written to storage and kept for download. It counts
 * first so its progress has a total. Resumable: after its instance died it starts again with a fresh file.
 */
export const exportJob = defineJobKind<ExportJobParams>({
  kind: 'export',
  resumable: true,
  title: (params, lang) => t(lang, 'job.export.title', { entity: entityName(params.entity, lang) }),
  async run(ctx) {
    const { entity: key, body, lang } = ctx.params
    const source = sources.get(ctx.services, key)
    if (!source) throw new AppError(404, 'job.export.gone', { entity: key })
    const { entity: e, repo, permission } = source
    if (!hasPermission(ctx.auth, permission)) throw forbidden('error.forbidden', { permission })
    sortColumn(e, body.orderByColumn as string | undefined)
    const db = ctx.services.db
    const scope = await resolveRowScope(db, ctx.auth)
    // What the starter may see of riders' personal data when it runs, as the list shows it to them.
    const view = privacyViewOf(ctx.auth)
    const exact = exactSearchFields(e, view)
    const counted = await dynamicDb(db)
      .selectFrom(e.table)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(repo.where(body, scope, exact))
      .executeTakeFirstOrThrow()
    const total = Number(counted.total)
    ctx.progress(0, total)
    let done = 0
    const { signal } = ctx
    const read = repo.exportRead(body, scope, lang, exact)
    async function* batches() {
      for await (const rows of maskRowArrays(e, read.columns, read.pages, view)) {
        signal.throwIfAborted()
        // No browser paces a job (a file takes bytes as fast as they come): requests get their turn between batches.
        await yieldWhenDue()
        yield rows
        done += rows.length
        // Rows added since the count make it more than the total: the bar stays full, not past it.
        ctx.progress(done, Math.max(done, total))
      }
    }
    const workbook = streamWorkbookRows({
      sheetName: e.label[lang],
      fields: e.exported,
      lang,
      dicts: await dictLabels(db, dictTypesOf(e.exported), lang),
      columns: read.columns,
      batches: batches(),
    })
    await ctx.writeFile(`${e.key}_${stamp()}.xlsx`, workbook)
    countRows(ctx.services, 'export', e.key, done)
    return { rows: done }
  },
})
