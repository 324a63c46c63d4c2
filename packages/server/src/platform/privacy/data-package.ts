import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { PassThrough, type Readable, Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import {
  APP_LANGUAGES,
  DATA_PACKAGE_DAYS,
  entityByKey,
  type FieldDef,
  labelFieldIn,
  labelWithUnit,
  type Language,
  type ResolvedEntity,
  isSecretColumn,
  storedColumns,
} from '@velo/shared'
import type ExcelJS from 'exceljs'
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate'
import { type Expression, type SqlBool, sql } from 'kysely'
import { type Db, type DynamicEb, dynamicDb } from '../../db/database'
import { loadExcelJs } from '../crud/excel'
import { dictLabels } from '../crud/repository'
import type { ActionArgs } from '../crud/workflow'
import { conflict, forbidden, notFound } from '../errors'
import { t } from '../i18n'
import { defineJobKind, isJobsFolderName } from '../jobs'
import type { Services } from '../services'
import { privacyViewOf, SEES_ALL } from './masking'
import { loadRider, type Rider, riderCondition, riderEntities } from './rider-rows'

// A rider's data package (GDPR Art. 15 access, Art. 20 portability; docs/privacy.md › Data package):
// one zip with a JSON file of every entity whose rows can be theirs (the definitions' `rider`
// declarations, rider-rows.ts: a table a new module adds is in it without a line here), their app
// sessions, the files their rows name, and summary.xlsx, the same for people to read in their
// language. Started by staff (Members › Data package, a job action) or by the rider in the app
// (POST /app/v1/me/export, a system job of kind member.dataPackage); either file is deleted after
// DATA_PACKAGE_DAYS (the kinds' keepFileDays). Everything streams: rows are read a page at a time
// and written as they come, so a rider with a million telemetry positions costs a page of memory.

type Row = Record<string, unknown>

/** The languages a package is written in: the app's, and Chinese (the console's other language). */
export const PACKAGE_LANGUAGES = [...APP_LANGUAGES, 'zh_CN'] as const
export type PackageLanguage = (typeof PACKAGE_LANGUAGES)[number]

export const isPackageLanguage = (value: unknown): value is PackageLanguage => (PACKAGE_LANGUAGES as readonly unknown[]).includes(value)

/** Field and entity labels exist in English and Chinese only: Chinese for a Chinese package, English for the others. */
const labelLanguage = (lang: PackageLanguage): Language => (lang === 'zh_CN' ? 'zh_CN' : 'en_US')

/** Rows read per statement: small enough to hold at once, large enough that a million take a thousand reads. */
const PAGE = 1000
/**
 * Rows a summary sheet shows of an entity: a person reads the first thousands, not a million
 * positions (and Excel stops at 1,048,576); the JSON file holds every one, and the first sheet says so.
 */
export const SUMMARY_ROWS = 10_000

/** What the zip holds besides the entities' files. */
export const SESSIONS_FILE = 'sessions.json'
export const SUMMARY_FILE = 'summary.xlsx'
export const FILES_FOLDER = 'files'

/** What a package job answers (its result): counts only, never a value of the rider's. */
export interface PackageResult {
  rows: Record<string, number>
  sessions: number
  files: number
}

interface PackageTexts {
  about: string
  intro: string
  member: string
  made: string
  until: string
  /** Said when field names are in another language than the package's. */
  labels: string
  file: string
  holds: string
  rows: string
  json: string
  sessions: string
  files: string
  summary: string
  capped: string
  missing: string
  yes: string
  no: string
}

/** The summary's own words; {label}, {sheet}, {n}, {total} are filled in. */
const TEXTS: Record<PackageLanguage, PackageTexts> = {
  en_US: {
    about: 'About this package',
    intro:
      'A copy of the personal data we hold on you, which the GDPR gives you the right to (Art. 15 access, Art. 20 portability). Each .json file holds every record of one kind, for computers; the other sheets of this workbook show them for people.',
    member: 'Member',
    made: 'Made (UTC)',
    until: 'Downloadable until (UTC)',
    labels: '',
    file: 'File',
    holds: 'What it holds',
    rows: 'Records',
    json: 'All your records of “{label}”, as JSON',
    sessions: 'Your sign-ins in the app: when each began, was last used, expires or ended',
    files: 'The pictures and files you gave us, by kind of record and field: files/<kind>/<field>/<name>',
    summary: 'This workbook: this page, then one sheet per kind of record',
    capped: 'The sheet “{sheet}” shows the first {n} records; its .json file holds all {total}',
    missing: '{n} files named in the records could not be found',
    yes: 'Yes',
    no: 'No',
  },
  de_DE: {
    about: 'Über dieses Datenpaket',
    intro:
      'Eine Kopie der personenbezogenen Daten, die wir über Sie speichern, wie die DSGVO es Ihnen zusteht (Art. 15 Auskunft, Art. 20 Datenübertragbarkeit). Jede .json-Datei enthält alle Datensätze einer Art, maschinenlesbar; die übrigen Blätter dieser Arbeitsmappe zeigen sie zum Lesen.',
    member: 'Mitglied',
    made: 'Erstellt (UTC)',
    until: 'Herunterladbar bis (UTC)',
    labels: 'Die Spaltenüberschriften und die Namen der Datenarten sind auf Englisch.',
    file: 'Datei',
    holds: 'Inhalt',
    rows: 'Datensätze',
    json: 'Alle Ihre Datensätze „{label}“ als JSON',
    sessions: 'Ihre Anmeldungen in der App: Beginn, letzte Nutzung, Ablauf oder Ende',
    files: 'Die Bilder und Dateien, die Sie uns gegeben haben, nach Art und Feld: files/<Art>/<Feld>/<Name>',
    summary: 'Diese Arbeitsmappe: diese Seite, dann ein Blatt je Art von Datensätzen',
    capped: 'Das Blatt „{sheet}“ zeigt die ersten {n} Datensätze; die .json-Datei enthält alle {total}',
    missing: '{n} in den Datensätzen genannte Dateien wurden nicht gefunden',
    yes: 'Ja',
    no: 'Nein',
  },
  nl_NL: {
    about: 'Over dit gegevenspakket',
    intro:
      'Een kopie van de persoonsgegevens die wij over u bewaren, waar de AVG u recht op geeft (art. 15 inzage, art. 20 overdraagbaarheid). Elk .json-bestand bevat alle gegevens van één soort, voor computers; de andere bladen van deze werkmap tonen ze leesbaar voor mensen.',
    member: 'Lid',
    made: 'Gemaakt (UTC)',
    until: 'Te downloaden tot (UTC)',
    labels: 'De kolomkoppen en de namen van de soorten gegevens zijn in het Engels.',
    file: 'Bestand',
    holds: 'Inhoud',
    rows: 'Records',
    json: 'Al uw gegevens van „{label}”, als JSON',
    sessions: 'Uw aanmeldingen in de app: begin, laatst gebruikt, verloop of einde',
    files: 'De foto’s en bestanden die u ons gaf, per soort en veld: files/<soort>/<veld>/<naam>',
    summary: 'Deze werkmap: deze pagina, daarna één blad per soort gegevens',
    capped: 'Het blad „{sheet}” toont de eerste {n} records; het .json-bestand bevat alle {total}',
    missing: '{n} bestanden die in de gegevens staan, zijn niet gevonden',
    yes: 'Ja',
    no: 'Nee',
  },
  fr_FR: {
    about: 'À propos de ce dossier',
    intro:
      'Une copie des données personnelles que nous détenons sur vous, comme le RGPD vous en donne le droit (art. 15 accès, art. 20 portabilité). Chaque fichier .json contient tous les enregistrements d’un type, pour une machine ; les autres feuilles de ce classeur les présentent pour une lecture humaine.',
    member: 'Membre',
    made: 'Créé le (UTC)',
    until: 'Téléchargeable jusqu’au (UTC)',
    labels: 'Les en-têtes de colonnes et les noms des types de données sont en anglais.',
    file: 'Fichier',
    holds: 'Contenu',
    rows: 'Enregistrements',
    json: 'Tous vos enregistrements « {label} », en JSON',
    sessions: 'Vos connexions à l’application : début, dernière utilisation, expiration ou fin',
    files: 'Les photos et fichiers que vous nous avez donnés, par type et par champ : files/<type>/<champ>/<nom>',
    summary: 'Ce classeur : cette page, puis une feuille par type d’enregistrement',
    capped: 'La feuille « {sheet} » montre les {n} premiers enregistrements ; son fichier .json les contient tous ({total})',
    missing: '{n} fichiers cités dans les enregistrements sont introuvables',
    yes: 'Oui',
    no: 'Non',
  },
  zh_CN: {
    about: '关于本数据副本',
    intro: '我们保存的关于您的个人数据的副本，GDPR 赋予您获取它的权利（第 15 条查阅权、第 20 条可携带权）。每个 .json 文件包含一类记录的全部内容，供计算机读取；本工作簿的其他工作表以便于阅读的方式展示它们。',
    member: '会员',
    made: '生成时间（UTC）',
    until: '可下载至（UTC）',
    labels: '',
    file: '文件',
    holds: '内容',
    rows: '记录数',
    json: '您的全部“{label}”记录（JSON）',
    sessions: '您在 App 中的登录：开始、最后使用、过期或结束时间',
    files: '您提供给我们的图片和文件，按记录类别和字段存放：files/<类别>/<字段>/<文件名>',
    summary: '本工作簿：本页，之后每类记录一个工作表',
    capped: '工作表“{sheet}”只显示前 {n} 条记录；其 .json 文件包含全部 {total} 条',
    missing: '记录中提到的 {n} 个文件未能找到',
    yes: '是',
    no: '否',
  },
}

const fill = (text: string, params: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole))

/** The entities a package holds: every rider entity but those that say `package: false` (a message's list of chosen members). */
export const packagedEntities = (): ResolvedEntity[] => riderEntities().flatMap((r) => (r.rider.package === false ? [] : [r.entity]))

/** The columns a package reads of an entity: every stored one but secrets (a password's hash, a device's key). */
function packagedColumns(e: ResolvedEntity) {
  return storedColumns(e).filter((c) => !isSecretColumn(c))
}

/** A value as JSON has it, whatever the dialect: booleans true/false, numbers as numbers. */
function jsonValue(kind: string, value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (kind === 'boolean') return value === true || value === 1 || value === '1' || value === 't'
  if (['number', 'reference', 'treeParent', 'money'].includes(kind)) return typeof value === 'number' ? value : Number(value)
  if (value instanceof Date) return value.toISOString()
  return value
}

/** Where a stored file of the rider's goes in the zip: files/<entity>/<field>/<its name>. */
const zipPathOf = (e: ResolvedEntity, f: FieldDef, stored: string) => `${FILES_FOLDER}/${e.key}/${f.name}/${basename(stored)}`

type Condition = (eb: DynamicEb) => Expression<SqlBool>

/**
 * How an entity's rows of one rider are paged: the conditions to read one after another (one per
 * device for a device link, so each is read through the (device, time) index), and the column a
 * page follows on from. That is the second column of an index that starts with the link column,
 * when it is a time or a number that is never empty (a device's telemetry by `receivedAt`): a page
 * is then a short range of that index. Anything else follows the id: a member's rides are few
 * enough to sort again for each page.
 */
function pagingOf(e: ResolvedEntity, rider: Rider): { parts: Condition[]; key: string | null } {
  const by = e.rider!.by
  const parts = 'device' in by ? rider.devices.map((d) => riderCondition(e, { ...rider, devices: [d] })) : [riderCondition(e, rider)]
  const link = 'member' in by ? by.member : 'device' in by ? by.device : by.email
  const second = e.storage?.indexes?.find((i) => i.columns[0] === link && i.columns.length > 1)?.columns[1]
  const column = second && second !== e.idField ? storedColumns(e).find((c) => c.name === second) : undefined
  const keyed = column && !column.nullable && ['datetime', 'number', 'date'].includes(column.source.kind)
  return { parts: parts.filter((p): p is Condition => p !== null), key: keyed ? column.name : null }
}

const PAGE_KEY = 'packagePageKey'

/**
 * The rider's rows of an entity, a page at a time, in the order of `pagingOf` (at most `max` rows),
 * with the stored columns but secrets. A page follows on from the last row's key and id: on
 * PostgreSQL a time key is read as text, so the next page starts exactly after it (an ISO string
 * would round microseconds to milliseconds and read a row twice).
 */
async function* riderPages(services: Services, e: ResolvedEntity, rider: Rider, max = Number.POSITIVE_INFINITY): AsyncGenerator<Row[]> {
  const db = dynamicDb(services.db)
  const { parts, key } = pagingOf(e, rider)
  const columns = packagedColumns(e).map((c) => c.name)
  const keyIsTime = key !== null && e.fieldMap.get(key)?.kind === 'datetime'
  const keyExpr = key === null ? null : services.dialect === 'postgres' && keyIsTime ? sql<string>`${sql.ref(key)}::text` : sql.ref(key)
  let left = max
  for (const part of parts) {
    let last: { key: unknown; id: unknown } | null = null
    while (left > 0) {
      let q = db.selectFrom(e.table).select(columns).where(part)
      if (keyExpr) q = q.select(keyExpr.as(PAGE_KEY))
      if (last && key !== null) {
        const after = last
        q = q.where(key, '>=', after.key).where((eb) => eb.or([eb(key, '>', after.key), eb(e.idField, '>', after.id)]))
      } else if (last) q = q.where(e.idField, '>', last.id)
      if (key !== null) q = q.orderBy(key)
      const rows = (await q.orderBy(e.idField).limit(Math.min(PAGE, left)).execute()) as Row[]
      if (!rows.length) break
      const tail = rows.at(-1)!
      last = { key: key === null ? null : tail[PAGE_KEY], id: tail[e.idField] }
      if (key !== null) for (const r of rows) delete r[PAGE_KEY]
      left -= rows.length
      yield rows
      if (rows.length < PAGE) break
    }
  }
}

/** How many of an entity's rows are the rider's. */
async function countRows(db: Db, e: ResolvedEntity, rider: Rider): Promise<number> {
  const condition = riderCondition(e, rider)
  if (!condition) return 0
  const row = await dynamicDb(db)
    .selectFrom(e.table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(condition)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The readable names of referenced rows, read once per page and remembered for the package. */
class ReferenceLabels {
  private readonly known = new Map<string, Map<number, string | null>>()
  constructor(
    private readonly db: Db,
    private readonly rider: Rider,
    private readonly lang: Language,
  ) {}

  /** Adds `<field>Label` (a reference) or `<field>Labels` (a list of them) to each row where the target is named cheaply. */
  async add(e: ResolvedEntity, rows: Row[]) {
    for (const f of e.fields) {
      if (f.kind !== 'reference' && f.kind !== 'referenceMany') continue
      const ids = [...new Set(rows.flatMap((r) => (f.kind === 'reference' ? [r[f.name]] : ((r[f.name] as unknown[] | undefined) ?? []))).filter((v): v is number => typeof v === 'number'))]
      const labels = await this.labels(f.entity, ids)
      if (!labels) continue
      for (const r of rows) {
        if (f.kind === 'reference') r[`${f.name}Label`] = typeof r[f.name] === 'number' ? (labels.get(r[f.name] as number) ?? null) : null
        else r[`${f.name}Labels`] = ((r[f.name] as number[] | undefined) ?? []).map((id) => labels.get(id) ?? null)
      }
    }
  }

  private async labels(entity: string, ids: number[]): Promise<Map<number, string | null> | undefined> {
    const target = entityByKey(entity)
    const labelField = target.fieldMap.get(target.labelField)
    if (target.labelField === target.idField) return undefined
    const known = this.known.get(entity) ?? new Map<number, string | null>()
    this.known.set(entity, known)
    // Named by a personal value (a member, by e-mail): only the rider's own row is named, never anyone else's.
    if (labelField?.personal) {
      if (target.key === 'member') known.set(this.rider.memberId, this.rider.email)
      return known
    }
    const missing = ids.filter((id) => !known.has(id))
    // Remembered for the package, within reason: a reference to thousands of rows is read per page instead.
    if (known.size > 10_000) known.clear()
    for (let i = 0; i < missing.length; i += PAGE) {
      const chunk = missing.slice(i, i + PAGE)
      const column = labelFieldIn(target, this.lang)
      const found = await dynamicDb(this.db).selectFrom(target.table).select([target.idField, column]).where(target.idField, 'in', chunk).execute()
      for (const id of chunk) known.set(id, null)
      for (const r of found) known.set(Number(r[target.idField]), r[column] === null || r[column] === undefined ? null : String(r[column]))
    }
    return known
  }
}

/** The ids each row links to through a list of references (a feedback's tags), by field. */
async function addLinks(db: Db, e: ResolvedEntity, rows: Row[]) {
  const ids = rows.map((r) => r[e.idField] as number)
  for (const f of e.fields) {
    if (f.kind !== 'referenceMany' || !ids.length) continue
    const { table, from, to } = f.through
    const links = await dynamicDb(db).selectFrom(table).select([from, to]).where(from, 'in', ids).orderBy(to).execute()
    const byRow = new Map<number, number[]>()
    for (const l of links) {
      const list = byRow.get(Number(l[from])) ?? []
      list.push(Number(l[to]))
      byRow.set(Number(l[from]), list)
    }
    for (const r of rows) r[f.name] = byRow.get(r[e.idField] as number) ?? []
  }
}

/** A stored file a row names, and where it goes in the zip. */
interface FileRef {
  stored: string
  path: string
}

/**
 * A page of rows as the package writes them: JSON values, list links and reference names added, and
 * each stored file's name replaced by its place in the zip (remembered in `files`, to copy later).
 */
async function packagedRows(services: Services, e: ResolvedEntity, raw: Row[], labels: ReferenceLabels, files?: Map<string, FileRef>): Promise<Row[]> {
  const columns = packagedColumns(e)
  const rows = raw.map((r) => Object.fromEntries(columns.map((c) => [c.name, jsonValue(c.source.kind, r[c.name])])))
  await addLinks(services.db, e, rows)
  await labels.add(e, rows)
  for (const f of e.fields) {
    if (f.kind !== 'image' && f.kind !== 'file') continue
    for (const r of rows) {
      const stored = r[f.name]
      // A name outside the storage, or in the jobs' folder, is nothing of the rider's to copy: left as it is.
      if (typeof stored !== 'string' || !stored || !services.storage.resolve(stored) || isJobsFolderName(services.storage, stored)) continue
      const path = zipPathOf(e, f, stored)
      if (files && !files.has(path)) files.set(path, { stored, path })
      r[f.name] = path
    }
  }
  return rows
}

/**
 * The zip as it is written: fflate's streaming Zip into the job's file. fflate pushes without
 * backpressure, so the writer waits for the file to take what it has (`drain`) between pages.
 */
class ZipOut {
  private readonly zip: Zip
  private failure: Error | undefined

  constructor(
    private readonly out: PassThrough,
    private readonly signal: AbortSignal,
  ) {
    this.zip = new Zip((err, chunk, final) => {
      if (err) {
        this.failure = err
        out.destroy(err)
        return
      }
      out.write(chunk)
      if (final) out.end()
    })
  }

  /** A new entry, compressed (JSON) or stored as it is (pictures, videos and the workbook are compressed already). */
  entry(name: string, compress: boolean): ZipDeflate | ZipPassThrough {
    const file = compress ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name)
    this.zip.add(file)
    return file
  }

  /** A text entry written in chunks of some 64 kB. */
  text(name: string) {
    const file = this.entry(name, true)
    const encoder = new TextEncoder()
    let parts: string[] = []
    let size = 0
    const flush = (final: boolean) => {
      file.push(encoder.encode(parts.join('')), final)
      parts = []
      size = 0
    }
    return {
      write: (s: string) => {
        parts.push(s)
        size += s.length
        if (size > 64 * 1024) flush(false)
      },
      end: () => flush(true),
    }
  }

  /** Waits until the file has taken what was written (and stops if it failed or the job was cancelled). */
  async drain() {
    this.signal.throwIfAborted()
    if (this.failure) throw this.failure
    if (this.out.destroyed) throw new Error('the package file was closed')
    if (this.out.writableNeedDrain) await once(this.out, 'drain', { signal: this.signal })
  }

  end() {
    this.zip.end()
  }
}

/** A sheet name Excel takes: no []:*?/\, at most 31 characters, unique in the workbook. */
function sheetName(label: string, taken: Set<string>): string {
  const base = label.replace(/[[\]:*?/\\]/g, ' ').trim().slice(0, 28) || 'Sheet'
  let name = base
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base} ${i}`
  taken.add(name.toLowerCase())
  return name
}

/** A cell as people read it: an option's or dictionary's label, a reference's name, a date, yes or no. */
function cellOf(f: FieldDef, row: Row, lang: Language, texts: PackageTexts, dicts: Map<string, Map<string, string>>): ExcelJS.CellValue {
  const value = row[f.name]
  if (value === null || value === undefined || value === '') return null
  switch (f.kind) {
    case 'enum':
      return f.options.find((o) => o.value === value)?.label[lang] ?? String(value)
    case 'dict':
      return dicts.get(f.dict)?.get(String(value)) ?? String(value)
    case 'boolean':
      return value ? texts.yes : texts.no
    case 'reference':
      return (row[`${f.name}Label`] as string | null) ?? (value as number)
    case 'referenceMany':
      return ((row[`${f.name}Labels`] as (string | null)[] | undefined) ?? (value as number[])).map((v, i) => v ?? (value as number[])[i]).join(', ')
    case 'datetime': {
      const d = new Date(String(value))
      return Number.isNaN(d.getTime()) ? String(value) : d
    }
    case 'number':
    case 'money':
    case 'treeParent':
      return typeof value === 'number' ? value : Number(value)
    default:
      return typeof value === 'string' ? value : JSON.stringify(value)
  }
}

export interface PackageOptions {
  services: Services
  memberId: number
  lang: PackageLanguage
  signal: AbortSignal
  progress: (done: number, total?: number | null) => void
  writeFile: (fileName: string, content: Readable) => Promise<string>
}

/**
 * Writes the member's data package as the job's file and answers what it counted. Refused when the
 * member is gone or their data erased. The caller has checked who may have it.
 */
export async function writeDataPackage(o: PackageOptions): Promise<PackageResult> {
  const { services, memberId, signal } = o
  const db = services.db
  const member = await db.selectFrom('memMember').select(['memberId', 'email', 'firstName', 'lastName', 'erasedTime']).where('memberId', '=', memberId).executeTakeFirst()
  const rider = member && (await loadRider(db, memberId))
  if (!member || !rider) throw notFound('privacy.package.memberGone')
  if (member.erasedTime) throw conflict('privacy.package.erased')
  const entities = packagedEntities()
  const counts: Record<string, number> = {}
  for (const e of entities) counts[e.key] = await countRows(db, e, rider)
  const total = Object.values(counts).reduce((a, b) => a + b, 0)
  o.progress(0, total)

  const madeAt = new Date()
  const out = new PassThrough()
  // Its failures reach us through `stored` or our own throw; destroyed before writeFile's pipeline
  // listens (a job cancelled at once), an unheard 'error' would take the process down.
  out.on('error', () => undefined)
  const stored = o.writeFile(`data-package-${memberId}-${madeAt.toISOString().slice(0, 10)}.zip`, out)
  // Observed below; a rejection before then must not go unheard.
  stored.catch(() => undefined)
  const zip = new ZipOut(out, signal)
  let result: PackageResult
  try {
    result = await writeZip({ ...o, zip, rider, member, entities, counts, madeAt })
  } catch (err) {
    out.destroy(err instanceof Error ? err : new Error(String(err)))
    await stored.catch(() => undefined)
    throw err
  }
  await stored
  return result
}

interface ZipWork extends PackageOptions {
  zip: ZipOut
  rider: Rider
  member: { memberId: number; email: string; firstName: string; lastName: string }
  entities: ResolvedEntity[]
  counts: Record<string, number>
  madeAt: Date
}

async function writeZip(w: ZipWork): Promise<PackageResult> {
  const { services, zip, rider, entities } = w
  const labelLang = labelLanguage(w.lang)
  const labels = new ReferenceLabels(services.db, rider, labelLang)
  const files = new Map<string, FileRef>()
  let done = 0
  for (const e of entities) {
    const text = zip.text(`${e.key}.json`)
    text.write(`{"entity":${JSON.stringify(e.key)},"label":${JSON.stringify(e.label[labelLang])},"rows":[`)
    let first = true
    for await (const page of riderPages(services, e, rider)) {
      for (const row of await packagedRows(services, e, page, labels, files)) {
        text.write(`${first ? '' : ','}\n${JSON.stringify(row)}`)
        first = false
      }
      done += page.length
      w.progress(done)
      await zip.drain()
    }
    text.write('\n]}\n')
    text.end()
    await zip.drain()
  }

  // The member's sign-ins in the app: when, never the token's hash.
  const sessions = await services.db.selectFrom('memSession').select(['created', 'lastSeen', 'expiresAt', 'ended']).where('memberId', '=', rider.memberId).orderBy('created').execute()
  const sessionsText = zip.text(SESSIONS_FILE)
  sessionsText.write(`{"entity":"session","rows":[${sessions.map((s) => `\n${JSON.stringify(s)}`).join(',')}\n]}\n`)
  sessionsText.end()

  let copied = 0
  let missing = 0
  for (const f of files.values()) {
    const full = services.storage.resolve(f.stored)!
    const size = await stat(full).then(
      (s) => (s.isFile() ? s.size : undefined),
      () => undefined,
    )
    if (size === undefined) {
      missing++
      continue
    }
    const entry = zip.entry(f.path, /\.(json|txt|log|csv|xml)$/i.test(f.path))
    for await (const chunk of createReadStream(full)) {
      entry.push(chunk as Uint8Array<ArrayBuffer>)
      await zip.drain()
    }
    entry.push(new Uint8Array(0), true)
    copied++
  }

  await writeSummary(w, labels, { sessions: sessions.length, files: copied, missing })
  zip.end()
  return { rows: w.counts, sessions: sessions.length, files: copied }
}

const DATE_STYLE = { numFmt: 'yyyy-mm-dd hh:mm:ss' }

/**
 * summary.xlsx: "About this package" (who, when, until when, each file and its count), then one
 * sheet per entity with the field labels as headers and the values as people read them, at most
 * SUMMARY_ROWS rows each. Written by exceljs's streaming writer straight into the zip entry, a sheet
 * after the other; the rows are read again, which is cheap for the few thousand a sheet shows.
 */
async function writeSummary(w: ZipWork, labels: ReferenceLabels, n: { sessions: number; files: number; missing: number }) {
  const { zip, entities, counts } = w
  const texts = TEXTS[w.lang]
  const labelLang = labelLanguage(w.lang)
  const number = new Intl.NumberFormat(w.lang.replace('_', '-'))
  const entry = zip.entry(SUMMARY_FILE, false)
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      entry.push(chunk as Uint8Array<ArrayBuffer>)
      zip.drain().then(() => callback(), callback)
    },
    final(callback) {
      entry.push(new Uint8Array(0), true)
      callback()
    },
  })
  // A sink that fails (the job cancelled, the file not writable) fails the summary: exceljs would
  // otherwise wait for it to finish for ever, and its error would go unheard.
  const sinkFailed = new Promise<never>((_, reject) => sink.once('error', reject))
  sinkFailed.catch(() => undefined)
  const workbook = new (await loadExcelJs()).stream.xlsx.WorkbookWriter({ stream: sink, useStyles: true, useSharedStrings: false })
  workbook.creator = 'Velo'
  workbook.created = w.madeAt
  const taken = new Set<string>()
  const names = new Map(entities.map((e) => [e.key, sheetName(e.label[labelLang], taken)]))

  const about = workbook.addWorksheet(sheetName(texts.about, new Set(taken)))
  about.columns = [{ width: 28 }, { width: 90 }, { width: 14 }]
  const bold = { font: { bold: true } }
  const add = (values: ExcelJS.CellValue[], style?: Partial<ExcelJS.Style>) => {
    const row = about.addRow(values)
    if (style) row.eachCell((c) => Object.assign(c, { style }))
    row.commit()
  }
  const until = new Date(w.madeAt.getTime() + DATA_PACKAGE_DAYS * 86_400_000)
  add([texts.about], { font: { bold: true, size: 14 } })
  add([texts.intro])
  add([])
  const name = [w.member.firstName, w.member.lastName].filter(Boolean).join(' ')
  add([texts.member, `${name ? `${name}, ` : ''}${w.member.email} (${w.member.memberId})`])
  add([texts.made, w.madeAt], DATE_STYLE)
  add([texts.until, until], DATE_STYLE)
  if (texts.labels) add([texts.labels])
  add([])
  add([texts.file, texts.holds, texts.rows], bold)
  for (const e of entities) add([`${e.key}.json`, fill(texts.json, { label: e.label[labelLang] }), counts[e.key] ?? 0])
  add([SESSIONS_FILE, texts.sessions, n.sessions])
  add([`${FILES_FOLDER}/`, texts.files, n.files])
  add([SUMMARY_FILE, texts.summary, null])
  add([])
  for (const e of entities) {
    const count = counts[e.key] ?? 0
    if (count > SUMMARY_ROWS) add([fill(texts.capped, { sheet: names.get(e.key)!, n: number.format(SUMMARY_ROWS), total: number.format(count) })])
  }
  if (n.missing) add([fill(texts.missing, { n: number.format(n.missing) })])
  about.commit()
  const sheets = writeSheets(w, workbook, names, labels, texts)
  sheets.catch(() => undefined)
  await Promise.race([sheets, sinkFailed])
  await finished(sink)
}

/** A sheet per entity, the rider's rows as people read them (at most SUMMARY_ROWS each), then the workbook's end. */
async function writeSheets(w: ZipWork, workbook: ExcelJS.stream.xlsx.WorkbookWriter, names: Map<string, string>, labels: ReferenceLabels, texts: PackageTexts) {
  const { services, zip, rider, entities } = w
  const labelLang = labelLanguage(w.lang)
  for (const e of entities) {
    const fields = e.fields.filter((f) => f.kind !== 'password')
    const dicts = await dictLabels(
      services.db,
      fields.flatMap((f) => (f.kind === 'dict' ? [f.dict] : [])),
      labelLang,
    )
    const sheet = workbook.addWorksheet(names.get(e.key)!)
    sheet.columns = fields.map((f) => {
      const header = labelWithUnit(f)[labelLang]
      return { header, key: f.name, width: f.kind === 'datetime' ? 20 : Math.min(40, Math.max(12, header.length + 4)), style: f.kind === 'datetime' ? DATE_STYLE : {} }
    })
    sheet.getRow(1).font = { bold: true }
    for await (const page of riderPages(services, e, rider, SUMMARY_ROWS)) {
      for (const row of await packagedRows(services, e, page, labels)) sheet.addRow(fields.map((f) => cellOf(f, row, labelLang, texts, dicts))).commit()
      await zip.drain()
    }
    sheet.commit()
  }
  await workbook.commit()
}

/** The language a rider wrote to us in last (their latest feedback's), else English: a staff-made package's language. */
export async function riderLanguage(db: Db, memberId: number): Promise<PackageLanguage> {
  const latest = await db
    .selectFrom('memFeedback')
    .select('language')
    .where('memberId', '=', memberId)
    .where('language', '<>', '')
    .orderBy('createTime', 'desc')
    .orderBy('feedbackId', 'desc')
    .executeTakeFirst()
  return isPackageLanguage(latest?.language) ? latest.language : 'en_US'
}

/**
 * Members › Members › Data package (a job action): the starter must see every category of personal
 * data, as the action's `alsoNeeds` says (the route and the job check it; asked here again because
 * the package is the one place that writes everything unmasked). The starter downloads it from
 * the jobs list (and admins, as any job's file), for DATA_PACKAGE_DAYS.
 */
export async function dataPackageAction({ auth, rows, services, signal, progress, writeFile }: ActionArgs): Promise<PackageResult> {
  if (privacyViewOf(auth) !== SEES_ALL) throw forbidden('privacy.package.seesAll')
  const memberId = Number(rows[0]?.memberId)
  return writeDataPackage({ services, memberId, lang: await riderLanguage(services.db, memberId), signal, progress, writeFile })
}

/** What a rider's own package job keeps: whose, and in which language (never a value of theirs). */
export interface RiderPackageParams {
  memberId: number
  lang: PackageLanguage
}

/**
 * A rider's package asked for in the app (POST /app/v1/me/export): a system job, its file served to
 * that member only, through the app API (privateFile: not even an admin downloads it from the jobs
 * list), and deleted after DATA_PACKAGE_DAYS.
 */
export const riderPackageJob = defineJobKind<RiderPackageParams>({
  kind: 'member.dataPackage',
  // Writes a fresh file each time: safe to run again after a crash.
  resumable: true,
  keepFileDays: DATA_PACKAGE_DAYS,
  privateFile: true,
  title: (params, lang) => t(lang, 'privacy.package.riderTitle', { memberId: params.memberId }),
  run: (ctx) =>
    writeDataPackage({
      services: ctx.services,
      memberId: ctx.params.memberId,
      lang: isPackageLanguage(ctx.params.lang) ? ctx.params.lang : 'en_US',
      signal: ctx.signal,
      progress: ctx.progress,
      writeFile: ctx.writeFile,
    }),
})

/**
 * The finished packages of one member still holding a file: the rider's own and those staff made
 * (the member's Data package action). Their erasure deletes them: a package is a copy of what it erases.
 */
export async function packageJobsOf(db: Db, memberId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('sysJob')
    .select(['jobId', 'kind', 'params'])
    .where('resultFile', 'is not', null)
    .where((eb) => eb.or([eb('kind', '=', riderPackageJob.kind), eb.and([eb('kind', '=', 'action'), eb('params', 'like', '%"action":"dataPackage"%')])]))
    .execute()
  return rows.flatMap((row) => {
    const params = JSON.parse(String(row.params)) as { memberId?: number; entity?: string; action?: string; ids?: number[] }
    const theirs = row.kind === riderPackageJob.kind ? Number(params.memberId) === memberId : params.entity === 'member' && params.action === 'dataPackage' && (params.ids ?? []).map(Number).includes(memberId)
    return theirs ? [Number(row.jobId)] : []
  })
}
