import {
  type ActionDef,
  type ActionPreview,
  actionPermission,
  actionRefusal,
  entityByKey,
  type EnumOption,
  finalStates,
  type FieldDef,
  type Label,
  type ResolvedEntity,
  type StateDeadline,
  type TimedStep,
  stepPermission,
  stepTargets,
  type TransitionStep,
  type Language,
  menuTitle,
  PERSONAL_DATA_BUTTONS,
} from '@velo/shared'
import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { sql, type Transaction } from 'kysely'
import { z } from 'zod'
import { type Db, dynamicDb } from '../../db/database'
import type { Database } from '../../db/schema'
import { BusinessType } from '../audit/operation-log'
import { ConfigValues } from '../config-keys'
import { ok } from '../envelope'
import { AppError, badRequest, conflict, forbidden } from '../errors'
import { languageOf } from '../http'
import { defineJobKind, jobInfo, SYSTEM_AUTH, type SweepDef } from '../jobs'
import { hasPermission } from '../rbac/auth-context'
import { resolveRowScope } from '../rbac/data-scope'
import { bilingual } from '../i18n/zod-messages'
import type { AuthContext } from '../rbac/auth-context'
import type { RowScope } from '../rbac/data-scope'
import { caller } from '../rbac/guard'
import type { Services } from '../services'
import { recordTransitions } from './history'
import type { EntityRepository } from './repository'
import { atFirstUse, idParam, importRowSchema, listSchema } from './schemas'
import { envelope, rowOf } from '../responses'
import { jobInfoSchema } from '../jobs/schema'
import { exactSearchFields, maskRow, privacyViewOf } from '../privacy/masking'

/** What a `preview` action's preview answers (ActionPreview in shared). */
const actionPreviewSchema = z.object({
  facts: z.array(z.object({ label: z.string(), value: z.string() })),
  warning: z.string().optional(),
  secondConfirm: z.string().optional(),
})

/** One step a row went through, as GET {path}/{id}/history answers it (web: TransitionRecord). */
const transitionRecord = z.object({
  logId: z.number(),
  step: z.string(),
  fromState: z.string(),
  toState: z.string(),
  input: z.record(z.string(), z.unknown()),
  userName: z.string(),
  operTime: z.string(),
})

type Row = Record<string, unknown>

/** What a transition's guard and after-hooks receive. */
export interface TransitionArgs {
  tx: Transaction<Database>
  auth: AuthContext
  step: TransitionStep
  /** The row before the step. */
  row: Row
  from: string
  to: string
  input: Row
  /** Shared by the guards and after-hooks of one step. */
  context: Row
}

/** What an action's handler receives: the rows it acts on (in the caller's scope) and the input. */
export interface ActionArgs {
  /**
   * A sync action's transaction (all or nothing); for a job, the database itself: long work commits
   * as it goes instead of holding one transaction (and, on SQLite, the writer) for minutes.
   */
  tx: Db
  /** The caller; for a job, the starter as they are when it runs. */
  auth: AuthContext
  action: ActionDef
  /** The row of a row action, the selected rows of a selection action, none for a toolbar action. */
  rows: Row[]
  input: Row
  services: Services
  /** A job's progress bar (a sync action's calls go nowhere). */
  progress: (done: number, total?: number | null) => void
  /** Aborted when a job is cancelled or its server stops: check it between units of work. */
  signal: AbortSignal
  /** The caller gave the second confirmation their action's preview asked for (`preview` actions). */
  confirmed: boolean
  /** A job's result file, downloaded from the jobs list (docs/jobs.md); a sync action has none and throws. */
  writeFile: (fileName: string, content: Readable) => Promise<string>
  /** The caller's language (the starter's when they queued a job): for texts the result or a file carries. */
  lang: Language
  /** A job action's job: work that reports as it goes (the conformance kit's clauses) writes its result there. */
  jobId?: number
  /**
   * Work for after the commit (end sessions, tell other instances): a sync action's runs once its
   * transaction has committed, and not if it rolls back; a job's right after its handler.
   */
  afterCommit: (work: () => Promise<void>) => void
}

/** What an action's preview handler receives: the rows and the input so far, in the caller's language. */
export type PreviewArgs = Pick<ActionArgs, 'tx' | 'auth' | 'action' | 'rows' | 'input' | 'services' | 'lang'>

/** What an action run as a job keeps in its params: enough to run it again on whichever instance claims it. */
interface ActionJobParams {
  entity: string
  action: string
  ids: number[]
  input: Row
  confirmed?: boolean
  lang?: Language
}

interface ActionSource {
  entity: ResolvedEntity
  repo: EntityRepository
  handlers: WorkflowHandlers
}

/** The entities with job actions of each app, so the job finds the handler and repository its route had. */
const actionSources = new WeakMap<Services, Map<string, ActionSource>>()

/** Rows an action may act on: each in the caller's scope, in a state its `when` allows, with its `whenEmpty` fields empty. */
async function actionRows(db: Db, e: ResolvedEntity, repo: EntityRepository, action: ActionDef, ids: number[], scope: RowScope): Promise<Row[]> {
  const rows: Row[] = []
  for (const id of ids) rows.push(await repo.fetchOne(db, id, scope))
  if (action.when) {
    const { field, is } = action.when
    const refused = rows.find((r) => !is.includes(String(r[field])))
    if (refused) {
      const value = valueLabel(e, field, refused[field])
      throw conflict('action.notNow', { actionEn: action.label.en_US, actionZh: action.label.zh_CN, valueEn: value.en_US, valueZh: value.zh_CN })
    }
  }
  // Done once already (an order evaluated): the field the action fills has a value.
  for (const row of rows) {
    const refusal = actionRefusal({ whenEmpty: action.whenEmpty }, row)
    if (refusal) {
      const label = e.fieldMap.get(refusal.field)?.label ?? { en_US: refusal.field, zh_CN: refusal.field }
      throw conflict('action.alreadySet', { actionEn: action.label.en_US, actionZh: action.label.zh_CN, fieldEn: label.en_US, fieldZh: label.zh_CN })
    }
  }
  return rows
}

/** A right as the role tree names it ("See body data"), else its permission string alone. */
function rightName(permission: string, lang: Language): string {
  const button = PERSONAL_DATA_BUTTONS.find(([p]) => p === permission)?.[1] ?? `button.${permission.split(':').at(-1)}`
  const title = menuTitle(button, lang)
  return title === button ? permission : `${title} (${permission})`
}

/**
 * Refuses (403) a caller lacking one of the rights the action needs besides its permission
 * (`alsoNeeds`), naming each one missing: the route asks before anything is read or queued, the job
 * again when it runs (the starter's rights as they are then).
 */
function checkAlsoNeeds(action: ActionDef, auth: AuthContext) {
  const missing = (action.alsoNeeds ?? []).filter((p) => !hasPermission(auth, p))
  if (!missing.length) return
  const named = (lang: Language) => missing.map((p) => rightName(p, lang)).join(lang === 'zh_CN' ? '、' : ', ')
  throw forbidden('action.alsoNeeds', { actionEn: action.label.en_US, actionZh: action.label.zh_CN, missingEn: named('en_US'), missingZh: named('zh_CN') })
}

/** The action a job action's params name, or undefined when its definition no longer has it. */
function actionOfParams(params: ActionJobParams): ActionDef | undefined {
  try {
    return entityByKey(params.entity).actions?.find((a) => a.name === params.action)
  } catch {
    return undefined
  }
}

/**
 * An action with `mode: 'job'`: queued by its route, run by whichever instance's worker claims it.
 * The starter's right and data scope are checked again when it runs. Not resumable: an action's work
 * (a push, a generation) is not known to be safe to repeat, so a job whose server died is failed.
 */
export const actionJob = defineJobKind<ActionJobParams>({
  kind: 'action',
  // A rider's data package goes after DATA_PACKAGE_DAYS, however long other jobs' files are kept.
  keepFileDays: (params) => actionOfParams(params)?.keepFileDays,
  title: (params, lang) => {
    try {
      const e = entityByKey(params.entity)
      const action = e.actions?.find((a) => a.name === params.action)
      return `${action?.label[lang] ?? params.action} · ${e.label[lang]}`
    } catch {
      return `${params.action} · ${params.entity}`
    }
  },
  async run(ctx) {
    const { entity: key, action: name, ids, input } = ctx.params
    const source = actionSources.get(ctx.services)?.get(key)
    const action = source?.entity.actions?.find((a) => a.name === name)
    const handler = action && source?.handlers.actions?.[name]
    if (!source || !action || !handler) throw badRequest('action.gone', { action: name })
    const permission = actionPermission(source.entity, action)
    if (!hasPermission(ctx.auth, permission)) throw forbidden('error.forbidden', { permission })
    checkAlsoNeeds(action, ctx.auth)
    const db = ctx.services.db
    const rows = await actionRows(db, source.entity, source.repo, action, ids, await resolveRowScope(ctx.services.db, ctx.auth))
    const lang = ctx.params.lang ?? 'en_US'
    const confirmed = ctx.params.confirmed === true
    // What was true when it was queued may not be now (another generation ran meanwhile): asked again.
    await checkPreview(source.handlers, { tx: db, auth: ctx.auth, action, rows, input, services: ctx.services, lang }, confirmed)
    const later: (() => Promise<void>)[] = []
    const result = await handler({ tx: db, auth: ctx.auth, action, rows, input, services: ctx.services, progress: ctx.progress, signal: ctx.signal, confirmed, writeFile: ctx.writeFile, lang, jobId: ctx.jobId, afterCommit: (work) => later.push(work) })
    for (const work of later) await work()
    return result
  },
})

const NOWHERE = () => {}
const NEVER = new AbortController().signal
const NO_FILE = (): Promise<string> => Promise.reject(new Error('only an action run as a job writes a file'))

/**
 * A `preview` action's preview, asked before it runs: its handler may refuse (throw an AppError), and
 * one that asks a second confirmation refuses the action without `confirmed: true` (409 with that text).
 */
async function checkPreview(handlers: WorkflowHandlers, args: PreviewArgs, confirmed: boolean): Promise<void> {
  const preview = args.action.preview ? handlers.previews?.[args.action.name] : undefined
  if (!preview) return
  const answer = await preview(args)
  if (answer.secondConfirm && !confirmed) throw conflict('action.confirmAgain', { text: answer.secondConfirm })
}

/** The behaviour a server module puts beside a definition's transitions and actions. */
export interface WorkflowHandlers {
  /** Per step: throw an AppError to refuse it (checked after the state, inside the step's transaction). */
  guards?: Partial<Record<string, readonly ((args: TransitionArgs) => Promise<void>)[]>>
  /** After any step, in its transaction (write a side table, stamp a field). */
  afterTransition?: readonly ((args: TransitionArgs & { after: Row }) => Promise<void>)[]
  /**
   * After any step once its transaction has committed: what must not happen for a step that rolls
   * back, or must see it done (tell a device, wake a worker that reads the row). `context` is the
   * guards' and after-hooks'.
   */
  afterTransitionCommit?: readonly ((args: Omit<TransitionArgs, 'tx'> & { after: Row }) => Promise<void>)[]
  /** Per action: its answer is the route's data (a sync action) or the job's result. */
  actions?: Partial<Record<string, (args: ActionArgs) => Promise<unknown>>>
  /**
   * Per action with `preview: true`: what it would do, for its dialog (`POST {action route}/preview`),
   * asked again before it runs. Throw an AppError to refuse the input (the action is refused the same).
   */
  previews?: Partial<Record<string, (args: PreviewArgs) => Promise<ActionPreview>>>
  /**
   * The entity's sweeps, by name: work over its rows every so often (the scheduled messages whose
   * time came, the carriers' answers about SIM cards), run by the one scheduler as `<entity>.<name>`
   * (platform/jobs/schedule.ts), once per tick across instances unless it says otherwise.
   */
  every?: Partial<Record<string, Omit<SweepDef, 'key'>>>
}

/** A value as people read it: an enum option's label, else the value itself. */
function valueLabel(e: ResolvedEntity, field: string, value: unknown): Label {
  const f = e.fieldMap.get(field)
  return (f?.kind === 'enum' ? f.options.find((o: EnumOption) => o.value === value)?.label : undefined) ?? { en_US: String(value), zh_CN: String(value) }
}

/** A step refused because the row is in a state it does not start from. */
function notAllowed(step: TransitionStep, state: Label) {
  return conflict('transition.notAllowed', { stepEn: step.label.en_US, stepZh: step.label.zh_CN, stateEn: state.en_US, stateZh: state.zh_CN })
}

/** The status (and its due time) of a new row. */
export async function initialState(tx: Db, e: ResolvedEntity): Promise<Row> {
  const t = e.transitions
  if (!t) return {}
  const field = e.fieldMap.get(t.field) as FieldDef & { kind: 'enum' }
  const initial = t.initial ?? field.options[0]!.value
  return { [t.field]: initial, ...(await deadlineColumns(tx, e, initial, new Date())) }
}

/** Modify may not write the status: it changes through the definition's steps only. */
export function refuseDirectStatusChange(e: ResolvedEntity, before: Row, values: Row) {
  const field = e.transitions?.field
  if (!field || values[field] === undefined || values[field] === before[field]) return
  throw badRequest('transition.directEdit', { fieldEn: e.fieldMap.get(field)!.label.en_US, fieldZh: e.fieldMap.get(field)!.label.zh_CN }, { errors: [{ field }] })
}

/** `overdue` on rows of an entity with due times: past the due time in a state that is not final. */
export function markOverdue(e: ResolvedEntity, rows: Row[]) {
  const deadline = e.transitions?.deadline
  if (!deadline) return
  const final = new Set(finalStates(e))
  const now = new Date().toISOString()
  for (const r of rows) {
    const due = r[deadline.field]
    r.overdue = typeof due === 'string' && due < now && !final.has(String(r[e.transitions!.field]))
  }
}

/**
 * Adds days to an instant (negative days go back); working days skip Saturdays and Sundays (UTC), as
 * a service desk counts them.
 */
export function addDays(start: Date, days: number, workingDays: boolean): Date {
  const d = new Date(start)
  if (!workingDays) {
    d.setUTCDate(d.getUTCDate() + days)
    return d
  }
  const direction = Math.sign(days)
  let left = Math.abs(days)
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + direction)
    const day = d.getUTCDay()
    if (day !== 0 && day !== 6) left--
  }
  return d
}

async function deadlineColumns(tx: Db, e: ResolvedEntity, state: string, now: Date): Promise<Row> {
  const deadline = e.transitions?.deadline
  if (!deadline) return {}
  const due: StateDeadline | undefined = deadline.due[state]
  if (!due) return { [deadline.field]: null }
  const days = due.configKey ? await new ConfigValues(tx).int(due.configKey, due.days, 0) : due.days
  return { [deadline.field]: addDays(now, days, !!due.workingDays).toISOString() }
}

/** Who a step is taken by, on which row, towards which state, with what input, within which rows. */
interface StepRequest {
  id: number
  step: TransitionStep
  to: string
  input: Row
  auth: AuthContext
  scope: RowScope
}

/**
 * One step on one row in the caller's transaction, whoever takes it (a user's route, a timed step):
 * the state read, the guards, the status and its due time written only from the state read, the
 * history row and the after-hooks. Answers the hooks' arguments for the after-commit hooks.
 */
async function takeStep(tx: Transaction<Database>, e: ResolvedEntity, repo: EntityRepository, handlers: WorkflowHandlers, req: StepRequest) {
  const t = e.transitions!
  const { id, step, to, input, auth } = req
  const row = await repo.fetchOne(tx, id, req.scope)
  const from = String(row[t.field])
  if (!step.from.includes(from)) throw notAllowed(step, valueLabel(e, t.field, from))
  const args: TransitionArgs = { tx, auth, step, row, from, to, input, context: {} }
  for (const guard of handlers.guards?.[step.name] ?? []) await guard(args)
  const now = new Date()
  const set: Row = { [t.field]: to, ...(to !== from ? await deadlineColumns(tx, e, to, now) : {}) }
  if (e.storage?.audited !== false) Object.assign(set, { updateBy: auth.userName, updateTime: now.toISOString() })
  // Only from the state just read: of two reviewers at once, the second finds it changed.
  const changed = await dynamicDb(tx).updateTable(e.table).set(set).where(e.idField, '=', id).where(t.field, '=', from).executeTakeFirst()
  if (Number(changed.numUpdatedRows) !== 1) {
    // Another step moved it since it was read: the refusal names the state it is in now.
    const current = await dynamicDb(tx).selectFrom(e.table).select(t.field).where(e.idField, '=', id).executeTakeFirst()
    throw notAllowed(step, valueLabel(e, t.field, current?.[t.field] ?? from))
  }
  await recordTransitions(tx, [{ entity: e.key, rowId: id, step: step.name, fromState: from, toState: to, input, userId: auth.userId, userName: auth.userName, operTime: now.toISOString() }])
  const after = await repo.fetchOne(tx, id, req.scope)
  for (const hook of handlers.afterTransition ?? []) await hook({ ...args, after })
  const { tx: _tx, ...committed } = args
  return { committed, after }
}

const ALL_ROWS: RowScope = { all: true }

/** How often the engine looks for rows a timed step takes: its waits are days, so a few minutes late is on time. */
const TIMED_STEP_EVERY = '5m'

/** Rows one timed-step sweep takes at most; the next tick takes the rest. */
const TIMED_BATCH = 500

/**
 * The rows of an entity that have stayed in one of a timed step's states since `cutoff` or longer:
 * since the last step that brought them into it (steps that stay, a remark, do not count), or their
 * creation where no step has moved them.
 */
export async function rowsDueForTimedStep(db: Db, e: ResolvedEntity, step: TimedStep, cutoff: Date): Promise<number[]> {
  const t = e.transitions!
  const entered = db
    .selectFrom('sysTransitionLog')
    .select((eb) => eb.fn.max('operTime').as('entered'))
    .where('entity', '=', e.key)
    .where('rowId', '=', sql.ref<number>(`${e.table}.${e.idField}`))
    .where('toState', '=', sql.ref<string>(`${e.table}.${t.field}`))
    .whereRef('fromState', '<>', 'toState')
  const rows = await dynamicDb(db)
    .selectFrom(e.table)
    .select(e.idField)
    .where(t.field, 'in', step.from)
    .where(sql`coalesce((${entered}), ${sql.ref(`${e.table}.createTime`)})`, '<=', cutoff.toISOString())
    .orderBy(e.idField)
    .limit(TIMED_BATCH)
    .execute()
  return rows.map((r) => Number(r[e.idField]))
}

/**
 * One run of a timed step's sweep: each due row in its own transaction, as the system, so that one
 * row a guard refuses (or another step moved meanwhile) leaves the others to go. Answers the rows moved.
 */
async function takeTimedStep(services: Services, e: ResolvedEntity, repo: EntityRepository, handlers: WorkflowHandlers, step: TimedStep, signal: AbortSignal): Promise<number> {
  const db = services.db
  const days = step.after.configKey ? await services.configValues.int(step.after.configKey, step.after.days, 1) : step.after.days
  const ids = await rowsDueForTimedStep(db, e, step, addDays(new Date(), -days, !!step.after.workingDays))
  let moved = 0
  for (const id of ids) {
    if (signal.aborted) break
    try {
      const { committed, after } = await db.transaction().execute((tx) => takeStep(tx, e, repo, handlers, { id, step, to: step.to, input: {}, auth: SYSTEM_AUTH, scope: ALL_ROWS }))
      for (const hook of handlers.afterTransitionCommit ?? []) await hook({ ...committed, after })
      moved++
    } catch (err) {
      if (!(err instanceof AppError)) throw err
    }
  }
  return moved
}

/** The input of a step or action, checked as an add's values are (required, formats, limits). */
function inputSchema(input: readonly FieldDef[] | undefined, extra: Record<string, z.ZodType> = {}) {
  return importRowSchema(input ?? []).extend(extra)
}

/** Input values as stored in the history: blanks dropped. */
const keptInput = (input: Row) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null && v !== ''))

/**
 * The input with its fields' defaults where the caller sent nothing: a required field with a
 * default may be left out (as on add), and the handler must then see the default, not nothing.
 */
function withDefaults(fields: readonly FieldDef[] | undefined, input: Row): Row {
  const out = { ...input }
  for (const f of fields ?? []) {
    const blank = out[f.name] === undefined || out[f.name] === null || out[f.name] === ''
    if (blank && 'default' in f && f.default !== undefined) out[f.name] = f.default
  }
  return out
}

/**
 * Routes of a definition's transitions and actions, beside its CRUD routes:
 * `POST {path}/{id}/{step}`, `GET {path}/{id}/history`, `POST {path}/counts` (rows per state),
 * `POST {path}/{id}/action/{name}` (row actions) and `POST {path}/action/{name}` (toolbar and
 * selection actions, `ids` in the body).
 */
export function registerWorkflowRoutes(
  app: FastifyInstance,
  services: Services,
  e: ResolvedEntity,
  repo: EntityRepository,
  handlers: WorkflowHandlers,
  scopeOf: (req: FastifyRequest) => Promise<RowScope>,
) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = [e.label.en_US]
  const module = e.label.en_US
  const t = e.transitions
  const db = services.db
  for (const [name, sweep] of Object.entries(handlers.every ?? {})) if (sweep) services.jobs.every({ ...sweep, key: `${e.key}.${name}` })

  for (const name of Object.keys(handlers.guards ?? {})) {
    if (!t?.steps.some((s) => s.name === name) && !t?.timed?.some((s) => s.name === name)) throw new Error(`${e.key}: a guard for ${name}, which is no step`)
  }
  for (const step of t?.timed ?? []) {
    services.jobs.every({
      key: `${e.key}.${step.name}`,
      title: { en_US: `${e.label.en_US}: ${step.label.en_US}`, zh_CN: `${e.label.zh_CN}：${step.label.zh_CN}` },
      every: TIMED_STEP_EVERY,
      run: (signal) => takeTimedStep(services, e, repo, handlers, step, signal),
    })
  }
  for (const name of Object.keys(handlers.actions ?? {})) {
    if (!e.actions?.some((a) => a.name === name)) throw new Error(`${e.key}: a handler for ${name}, which is no action`)
  }
  for (const name of Object.keys(handlers.previews ?? {})) {
    if (!e.actions?.some((a) => a.name === name && a.preview)) throw new Error(`${e.key}: a preview for ${name}, which is no action with preview: true`)
  }
  for (const a of e.actions ?? []) if (a.preview && !handlers.previews?.[a.name]) throw new Error(`${e.key}: action ${a.name} has preview: true and no preview handler`)

  if (t) {
    const statusField = e.fieldMap.get(t.field)!
    for (const step of t.steps) {
      const targets = stepTargets(step)
      const toSchema = z.enum(targets as [string, ...string[]], { error: () => bilingual({ en_US: `Choose one of ${targets.join(', ')}`, zh_CN: `请选择 ${targets.join('、')} 之一` }) })
      api.post(
        `${e.path}/:id/${step.name}`,
        {
          config: { permission: stepPermission(e, step), stepUp: step.stepUp === true, audit: { module, businessType: BusinessType.update } },
          schema: {
            tags,
            summary: `${step.label.en_US}: ${step.from.join(', ')} → ${targets.join(' | ')}`,
            params: idParam,
            body: inputSchema(step.input, { to: targets.length > 1 ? toSchema : toSchema.optional() }),
            response: { 200: envelope(rowOf(e)) },
          },
        },
        async (req) => {
          const body = req.body as Row
          const to = (body.to as string | undefined) ?? targets[0]!
          const input = keptInput(withDefaults(step.input, Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'to'))))
          const auth = caller(req)
          const scope = await scopeOf(req)
          const { committed, after } = await db.transaction().execute((tx) => takeStep(tx, e, repo, handlers, { id: req.params.id, step, to, input, auth, scope }))
          for (const hook of handlers.afterTransitionCommit ?? []) await hook({ ...committed, after })
          const reached = valueLabel(e, t.field, to)
          return ok(maskRow(e, after, privacyViewOf(auth)), 'transition.done', { stepEn: step.label.en_US, stepZh: step.label.zh_CN, stateEn: reached.en_US, stateZh: reached.zh_CN })
        },
      )
    }

    api.get(
      `${e.path}/:id/history`,
      {
        config: { permission: `${e.permission}:query` },
        schema: { tags, summary: `Transitions of one ${e.singular.en_US}, oldest first (who, when, from, to, input)`, params: idParam, response: { 200: envelope(z.array(transitionRecord)) } },
      },
      async (req) => {
        await repo.fetchOne(db, req.params.id, await scopeOf(req))
        const rows = await db
          .selectFrom('sysTransitionLog')
          .select(['logId', 'step', 'fromState', 'toState', 'input', 'userName', 'operTime'])
          .where('entity', '=', e.key)
          .where('rowId', '=', req.params.id)
          .orderBy('logId')
          .execute()
        return rows.map((r) => ({ ...r, input: JSON.parse(String(r.input)) as Row }))
      },
    )

    const counted = atFirstUse(() => listSchema(e))
    api.post(
      `${e.path}/counts`,
      {
        config: { permission: `${e.permission}:list`, audit: false },
        schema: { tags, summary: `Rows of ${e.label.en_US} per ${statusField.label.en_US} (the list's other filters apply)`, body: counted, response: { 200: envelope(z.record(z.string(), z.number())) } },
      },
      async (req) => {
        const body = { ...(req.body as Row), [t.field]: undefined }
        const rows = await dynamicDb(db)
          .selectFrom(e.table)
          .select([t.field, sql<number>`count(*)`.as('n')])
          .where(repo.where(body, await scopeOf(req), exactSearchFields(e, privacyViewOf(caller(req)))))
          .groupBy(t.field)
          .execute()
        const counts = Object.fromEntries((statusField as FieldDef & { kind: 'enum' }).options.map((o) => [o.value, 0]))
        for (const r of rows) counts[String(r[t.field])] = Number(r.n)
        return counts
      },
    )
  }

  if (e.actions?.some((a) => a.mode === 'job')) {
    const sources = actionSources.get(services) ?? new Map<string, ActionSource>()
    actionSources.set(services, sources)
    sources.set(e.key, { entity: e, repo, handlers })
  }
  for (const action of e.actions ?? []) {
    const handler = handlers.actions?.[action.name]
    if (!handler) throw new Error(`${e.key}: action ${action.name} has no handler`)
    const route = action.on === 'row' ? `${e.path}/:id/action/${action.name}` : `${e.path}/action/${action.name}`
    const extra: Record<string, z.ZodType> = {}
    if (action.on === 'selection') extra.ids = z.array(z.number().int().positive()).min(1).max(10_000)
    if (action.preview) extra.confirmed = z.boolean().optional()
    const body = inputSchema(action.input, extra)
    const idsOf = (req: FastifyRequest): number[] =>
      action.on === 'row' ? [(req.params as { id: number }).id] : action.on === 'selection' ? [...new Set((req.body as Row).ids as number[])] : []
    const inputOf = (values: Row) => keptInput(withDefaults(action.input, Object.fromEntries(Object.entries(values).filter(([k]) => k !== 'ids' && k !== 'confirmed'))))

    const preview = handlers.previews?.[action.name]
    // Checked at start: a preview handler exists exactly for the actions with `preview: true`.
    if (preview) {
      api.post(
        `${route}/preview`,
        {
          // Reads only: not an operation, not logged.
          config: { permission: actionPermission(e, action), audit: false },
          schema: {
            tags,
            summary: `${action.label.en_US}: what it would do (the dialog's preview)`,
            ...(action.on === 'row' ? { params: idParam } : {}),
            body,
            response: { 200: envelope(actionPreviewSchema) },
          },
        },
        async (req) => {
          const auth = caller(req)
          checkAlsoNeeds(action, auth)
          const rows = await actionRows(db, e, repo, action, idsOf(req), await scopeOf(req))
          return preview({ tx: db, auth, action, rows, input: inputOf(req.body as Row), services, lang: languageOf(req) })
        },
      )
    }
    api.post(
      route,
      {
        config: { permission: actionPermission(e, action), stepUp: action.stepUp === true, audit: { module, businessType: BusinessType.other } },
        schema: {
          tags,
          summary: action.label.en_US,
          ...(action.on === 'row' ? { params: idParam } : {}),
          body,
          // A job's action answers the queued job; one answered at once, whatever its handler returns.
          response: { 200: action.mode === 'job' ? envelope(jobInfoSchema) : envelope(z.unknown()) },
        },
      },
      async (req) => {
        const auth = caller(req)
        checkAlsoNeeds(action, auth)
        const scope = await scopeOf(req)
        const input = inputOf(req.body as Row)
        const ids = idsOf(req)
        const confirmed = (req.body as Row).confirmed === true
        const lang = languageOf(req)
        if (action.mode === 'job') {
          // Refused now what would be refused when it runs: a row out of scope or in the wrong state,
          // an input its preview refuses, a second confirmation missing.
          const rows = await actionRows(db, e, repo, action, ids, scope)
          await checkPreview(handlers, { tx: db, auth, action, rows, input, services, lang }, confirmed)
          const params: ActionJobParams = { entity: e.key, action: action.name, ids, input, confirmed, lang }
          const job = await services.jobs.enqueue('action', params, auth)
          return ok(jobInfo(job, lang), 'job.queued')
        }
        const later: (() => Promise<void>)[] = []
        const result = await db.transaction().execute(async (tx) => {
          const rows = await actionRows(tx, e, repo, action, ids, scope)
          await checkPreview(handlers, { tx, auth, action, rows, input, services, lang }, confirmed)
          return handler({ tx, auth, action, rows, input, services, progress: NOWHERE, signal: NEVER, confirmed, writeFile: NO_FILE, lang, afterCommit: (work) => later.push(work) })
        })
        for (const work of later) await work()
        return ok(result ?? null, 'action.done', { actionEn: action.label.en_US, actionZh: action.label.zh_CN })
      },
    )
  }
}
