import { type FieldDef, periodCount, type ResolvedEntity, SUMMARY_BUCKETS, type SummaryBucket, summableFields, timeFields } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { type RawBuilder, sql } from 'kysely'
import { z } from 'zod'
import { type Db, type Dialect, dynamicDb } from '../../db/database'
import { bilingual } from '../i18n/zod-messages'
import type { RowScope } from '../rbac/data-scope'
import { envelope } from '../responses'
import type { Services } from '../services'
import type { EntityRepository } from './repository'
import { atFirstUse, filterFields, madeOnce } from './schemas'
import { caller } from '../rbac/guard'
import { exactSearchFields, privacyViewOf } from '../privacy/masking'

/** Periods one summary answers at most: a day's bars for almost three years, a week's for nineteen. */
export const SUMMARY_MAX_PERIODS = 1000

/** The body's own names beside the filters: a searchable field may not take one of them. */
const CONTROLS = ['time', 'value', 'bucket', 'from', 'to'] as const

const day = (name: string) =>
  z.iso.date({ error: () => bilingual({ en_US: `${name} must be a date YYYY-MM-DD`, zh_CN: `${name} 必须是日期 YYYY-MM-DD` }) })

/** A choice among field names the definition allows; nothing else, so no request text reaches the SQL. */
function fieldChoice(allowed: readonly FieldDef[], what: { en_US: string; zh_CN: string }) {
  const names = allowed.map((f) => f.name)
  const error = () =>
    bilingual(
      names.length
        ? { en_US: `${what.en_US} must be one of ${names.join(', ')}`, zh_CN: `${what.zh_CN}必须是 ${names.join('、')} 之一` }
        : { en_US: `${what.en_US}: this list has no such field`, zh_CN: `${what.zh_CN}：此列表没有这样的字段` },
    )
  return names.length ? z.enum(names as [string, ...string[]], { error }) : z.never({ error })
}

/**
 * The body of POST {path}/summary: the list's filters, the date or time field the rows fall into
 * periods by, the summable field added up (none: rows counted), the period and the days from and to
 * (both included, UTC).
 */
export const summarySchema = madeOnce((e: ResolvedEntity) =>
  z
    .strictObject({
      ...filterFields(e),
      time: fieldChoice(timeFields(e), { en_US: 'time', zh_CN: 'time ' }),
      value: fieldChoice(summableFields(e), { en_US: 'value (a summable field)', zh_CN: 'value（可汇总字段）' }).optional(),
      bucket: z.enum(SUMMARY_BUCKETS as [SummaryBucket, ...SummaryBucket[]], {
        error: () => bilingual({ en_US: `bucket must be one of ${SUMMARY_BUCKETS.join(', ')}`, zh_CN: `bucket 必须是 ${SUMMARY_BUCKETS.join('、')} 之一` }),
      }),
      from: day('from'),
      to: day('to'),
    })
    .superRefine((body, ctx) => {
      // Refinements run even after a field failed: compare only what is well formed.
      if (!SUMMARY_BUCKETS.includes(body.bucket) || !z.iso.date().safeParse(body.from).success || !z.iso.date().safeParse(body.to).success) return
      if (body.from > body.to) ctx.addIssue({ code: 'custom', path: ['to'], message: bilingual({ en_US: 'to must not be before from', zh_CN: 'to 不能早于 from' }) })
      else if (periodCount(body.bucket, body.from, body.to) > SUMMARY_MAX_PERIODS) {
        ctx.addIssue({
          code: 'custom',
          path: ['from'],
          message: bilingual({ en_US: `at most ${SUMMARY_MAX_PERIODS} periods (${body.bucket}s) at once`, zh_CN: `一次最多 ${SUMMARY_MAX_PERIODS} 个周期` }),
        })
      }
    })
)

/** One period as the route answers it. */
export const summaryPoint = z.object({ bucket: z.string(), value: z.number(), count: z.number() })

/**
 * The first day of a row's period, 'YYYY-MM-DD', in SQL: the unit comes from the schema's choices and
 * the column from the definition, never from request text. UTC, weeks starting on Monday, as
 * periodStart in shared says it.
 */
export function periodSql(dialect: Dialect, field: FieldDef, bucket: SummaryBucket): RawBuilder<string> {
  const col = sql.ref(field.name)
  if (dialect === 'postgres') {
    // A timestamptz is truncated as UTC whatever the session's time zone; a date has none.
    const at = field.kind === 'datetime' ? sql`(${col} at time zone 'UTC')` : sql`${col}::timestamp`
    return sql<string>`to_char(date_trunc(${sql.lit(bucket)}, ${at}), 'YYYY-MM-DD')`
  }
  // SQLite keeps dates and times as ISO text, which its date functions read ('Z' included).
  if (bucket === 'day') return sql<string>`date(${col})`
  if (bucket === 'week') return sql<string>`date(${col}, 'weekday 0', '-6 days')`
  return sql<string>`strftime('%Y-%m-01', ${col})`
}

type SummaryBody = z.infer<ReturnType<typeof summarySchema>>

/** Rows per period of the time field, with the value's sum: the list's filters and data scope apply. */
export async function summarize(db: Db, dialect: Dialect, repo: EntityRepository, body: SummaryBody, scope: RowScope, exact?: ReadonlySet<string>) {
  const e = repo.entity
  const time = e.fieldMap.get(body.time)!
  const value = body.value === undefined ? undefined : e.fieldMap.get(body.value)!
  // A bare day on a datetime means the whole UTC day, as the list's range filter reads it.
  const [from, to] = time.kind === 'datetime' ? [`${body.from}T00:00:00.000Z`, `${body.to}T23:59:59.999Z`] : [body.from, body.to]
  const period = periodSql(dialect, time, body.bucket)
  const rows = await dynamicDb(db)
    .selectFrom(e.table)
    .select([period.as('bucket'), (value ? sql<number>`coalesce(sum(${sql.ref(value.name)}), 0)` : sql<number>`0`).as('value'), sql<number>`count(*)`.as('count')])
    .where(repo.where(body, scope, exact))
    .where(sql.ref(time.name), '>=', from)
    .where(sql.ref(time.name), '<=', to)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute()
  const round = value?.kind === 'money' ? (n: number) => Math.round(n * 100) / 100 : (n: number) => n
  return rows.map((r) => ({ bucket: String(r.bucket), value: round(Number(r.value)), count: Number(r.count) }))
}

/**
 * POST {path}/summary: rows per day, week or month of a date or time field, and the sum of a
 * summable field, for the charts of related lists. Whoever may list the entity may ask, over the
 * rows the list would show them.
 */
export function registerSummaryRoute(
  app: FastifyInstance,
  services: Services,
  e: ResolvedEntity,
  repo: EntityRepository,
  scopeOf: (req: FastifyRequest) => Promise<RowScope>,
) {
  if (!timeFields(e).length) return
  const taken = e.searchable.find((f) => (CONTROLS as readonly string[]).includes(f.name))
  if (taken) throw new Error(`${e.key}: the searchable field ${taken.name} has a name POST ${e.path}/summary uses for itself (${CONTROLS.join(', ')}); rename it`)
  const db = services.db
  app.withTypeProvider<ZodTypeProvider>().post(
    `${e.path}/summary`,
    {
      config: { permission: `${e.permission}:list`, audit: false },
      schema: {
        tags: [e.label.en_US],
        summary: `${e.label.en_US} per day, week or month (the list's filters apply): rows and the sum of a summable field`,
        body: atFirstUse(() => summarySchema(e)),
        response: { 200: envelope(z.array(summaryPoint)) },
      },
    },
    async (req) => summarize(db, services.dialect, repo, req.body, await scopeOf(req), exactSearchFields(repo.entity, privacyViewOf(caller(req)))),
  )
}
