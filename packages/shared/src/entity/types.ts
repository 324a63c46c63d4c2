import type { Language } from '../api'
import type { DurationUnit } from '../duration'
import type { PersonalCategory } from '../privacy'
import type { ValueTypeTable } from '../config-keys'

/** A text in every language of the product. */
export type Label = Record<Language, string>

/**
 * How a searchable field filters: exact, contains (case-insensitive), between two values, one of
 * many, or (on a reference to a tree) the node and everything below it.
 */
export type SearchMode = 'eq' | 'like' | 'range' | 'in' | 'subtree'

interface FieldBase {
  /** camelCase name: the API property, the Kysely column (snake_case in the database). */
  name: string
  label: Label
  required?: boolean
  /** Refused on add/modify when another row has the same value; the first unique field keys import updates. */
  unique?: boolean
  search?: SearchMode
  /** Shown in the list; default true. */
  list?: boolean
  sort?: boolean
  /**
   * With `sort`: the list sorts by this storage column instead of the field's own (a version by its
   * number, so 1.10.0 comes after 1.9.0). The server keeps the column in step with the field.
   */
  sortBy?: string
  /** In Excel export; default true (not for passwords). */
  export?: boolean
  /** A column of the import template; default: every writable field. */
  import?: boolean
  /** Set by the server, never by a client (ids, times, counters). */
  readOnly?: boolean
  /** Set on add, never changed afterwards (e.g. a user name). */
  immutable?: boolean
  /** Sent by the API but hidden from lists and Excel (e.g. bodies of long texts). */
  hidden?: boolean
  /**
   * Identifies or describes a rider (GDPR): a staff user without the category's right
   * (member:pii:<category>) gets a mask in every answer, list, details, export and picker alike;
   * a search on it matches the whole value only. See privacy.ts and docs/privacy.md.
   */
  personal?: PersonalCategory
  /**
   * A JSON text whose named top-level keys hold personal data (a device message's `gps`): for whoever
   * may not see the category, those keys' values read as a mask and the rest of the text stays.
   */
  personalKeys?: { category: PersonalCategory; keys: readonly string[] }
  /** In the add/modify form; default: every writable field. */
  form?: boolean
  /** A hint under the form input. */
  help?: Label
  /** A named custom input the web registers (e.g. 'icon' for the menu icon picker). */
  widget?: string
  /** Shown in the form only while another field has one of these values (a menu's type decides its fields). */
  when?: { field: string; is: readonly string[] }
  /**
   * A text whose type another field's value decides (a configuration value is a boolean, a whole
   * number or a choice according to its key): `table` names the table of types (VALUE_TYPE_TABLES,
   * config-keys.ts) that answers the type for that value, or nothing for free text. Named, not a
   * function: the definition stays data, and the table loads with the form, not the first screen.
   * The server checks every write against it, and the form offers the type's input (a switch, a
   * number with limits, a select). The value still travels and is stored as text ('true', '10').
   */
  typedBy?: { field: string; table: ValueTypeTable }
  /**
   * The column may hold null. A text-like field's column is otherwise NOT NULL (an optional one
   * defaults to ''), as the engine stores '' for a blank one (docs/entity-engine.md › Table shape).
   */
  nullable?: boolean
}

/** One choice of a fixed list. */
export interface EnumOption {
  value: string
  label: Label
  /** antd tag colour in lists (success, processing, error, warning, default or a colour). */
  color?: string
  /**
   * What choosing it means, in a short sentence ("The rider mails the bike to us"): shown under the
   * choice wherever it is chosen (a form's or a dialog's radio list, a dropdown's option, a step's
   * "Move to" when the field is a status), so a bare name is not all there is to go on.
   */
  description?: Label
}

export type FieldDef = FieldBase &
  (
    | {
        kind: 'text'
        min?: number
        max?: number
        pattern?: RegExp
        patternMessage?: Label
        default?: string
        /** A check digit the value ends with: `luhn` (ISO/IEC 7812: ICCIDs, IMEIs, card numbers), checked on the digits. */
        check?: TextCheck
      }
    | { kind: 'longText'; max?: number; default?: string }
    /** HTML from the rich text editor; sanitized on the server. */
    | { kind: 'richText'; max?: number; default?: string }
    | {
        kind: 'number'
        min?: number
        max?: number
        int?: boolean
        default?: number
        /** May be summed per period (POST {path}/summary, a related list's chart). */
        summable?: boolean
        /**
         * The number is a duration stored in this unit (a ride's seconds): lists, details and cards
         * read it as one ("1 h 12 min", "1小时12分"); the form's input, the Excel column and the
         * validation messages name the unit, so the label leaves it out (shared/src/duration.ts).
         */
        duration?: DurationUnit
      }
    /** An amount with two decimals (stored as a decimal, sent as a number). */
    | { kind: 'money'; min?: number; max?: number; default?: number; /** May be summed per period (POST {path}/summary, a related list's chart). */ summable?: boolean }
    | { kind: 'boolean'; default?: boolean; /** Yes is a warning sign (an order past the 5 % rule): shown red instead of green. */ alarm?: boolean }
    /** Values from a dictionary type (sys_dict_data), shown by their labels. */
    | { kind: 'dict'; dict: string; default?: string; /** The column's length (default 100, as sys_dict_data.dict_value). */ max?: number }
    /** Values from a fixed list in the definition. */
    | { kind: 'enum'; options: readonly EnumOption[]; default?: string; /** The column's length (default the longest option). */ max?: number }
    /** A calendar date 'YYYY-MM-DD'. */
    | { kind: 'date' }
    /** An instant, ISO 8601 with offset; stored and returned in UTC. */
    | { kind: 'datetime' }
    /** A stored file name from POST /common/upload (jpg, jpeg, png), shown as a thumbnail. */
    | { kind: 'image' }
    /**
     * A stored file name from the entity's own upload route (POST {path}/file/{name}) with one of
     * these extensions (lower-case, no dot); at most `maxBytes` (default the server's FILE_MAX_MB, 512 MB).
     */
    | { kind: 'file'; accept: readonly string[]; maxBytes?: number }
    /** A version 'major.minor.patch', each part 0–999 (SPEC §5). */
    | { kind: 'version'; default?: string }
    /** A code of 1 to `max` (default 2) letters, kept upper-case (SPEC §5). */
    | { kind: 'letterCode'; max?: 1 | 2 }
    | { kind: 'email'; max?: number; default?: string }
    | { kind: 'phone'; default?: string }
    /** Written on add only and never read back: hashed by the module's hook. */
    | { kind: 'password' }
    /** The id of a row of another entity (by key); shown by that entity's label field. */
    | {
        kind: 'reference'
        entity: string
        /**
         * A field this entity and the referenced one both have (a reference to the same rows): the
         * choices are the referenced rows that share this row's value of it (a bike's colours are
         * its model's). Pickers offer only those, and the server refuses any other.
         */
        within?: string
        /**
         * Fields of the referenced row the list shows with its label (a bike's IoT device with its
         * state), sent as `<name><Field>` (iotDeviceIdState). When the referenced entity is `live`,
         * the list keeps them current from its stream.
         */
        carry?: readonly string[]
      }
    /**
     * Ids of rows of another entity linked through a join table (a user's roles, a role's menus);
     * not a column: the engine reads and replaces the links in the row's transaction.
     */
    | { kind: 'referenceMany'; entity: string; through: { table: string; from: string; to: string } }
    /** The parent id in the same entity (0 = a root): makes the entity a tree. */
    | { kind: 'treeParent' }
    /** An IANA time zone name ('Europe/Amsterdam'), checked against the runtime's list. */
    | { kind: 'timeZone'; default?: string }
    /**
     * A shape on the map as GeoJSON text (geometry.ts): a Polygon of one ring, or a circle (a Point
     * with a `radius` in metres). Stored as the normalized text; the form draws it on a map.
     */
    | { kind: 'geometry' }
  )

export type FieldKind = FieldDef['kind']

/** Check digits a text field may end with (FieldDef `check`). */
export type TextCheck = 'luhn'

/** The size limit of a `file` field without its own `maxBytes` (the server's FILE_MAX_MB default). */
export const DEFAULT_FILE_MAX_BYTES = 512 * 1024 * 1024

/**
 * One named step of a status field (hawkBit's verbs, Fastify's workflow demo): the only way the
 * status changes. The engine derives its route `POST {path}/{id}/{name}`, its permission and menu
 * button, OpenAPI, the operation log, the history row and the row button with its input dialog.
 */
export interface TransitionStep {
  /** camelCase: the route segment and the last part of the default permission. */
  name: string
  /** The button and the history's wording ('Review', '审核'). */
  label: Label
  /** States the step may start from. */
  from: readonly string[]
  /**
   * The state it leads to, or the states the caller chooses from (a review decides the return way).
   * A step whose only target is its only source records its input without advancing (a remark).
   */
  to: string | readonly string[]
  /** Default `${entity.permission}:${name}`. */
  permission?: string
  /** What the caller enters (a reason, a tracking number); kept in the history row. */
  input?: readonly FieldDef[]
  /** Asked before the step runs; {label} is the row's name. */
  confirm?: Label
  /** Shown as a dangerous button (reject, withdraw). */
  danger?: boolean
  /**
   * Fields of the row its dialog shows beside the input, read as the details show them (the
   * feedback's member, stars, tags, text and images beside the reply box): what the user decides on.
   */
  context?: readonly string[]
  /** What the step does beyond the row, said in its dialog from the row's values (OperationNote). */
  notes?: readonly OperationNote[]
  /**
   * A dangerous step (approve a firmware push, start it): it asks for a second proof (the second
   * factor, or the password) unless one was given in the last few minutes, and a role holding its
   * permission requires a second factor. The server enforces it; the console asks and repeats the call.
   */
  stepUp?: boolean
}

/**
 * A sentence an operation's dialog says about what it does beyond the row, from the row's values
 * (docs/entity-engine.md › Actions): "The IoT device {iotDeviceId} stays fitted to the bike…". Said
 * only while the row meets its conditions, so the module's behaviour for each case is worded in
 * the definition beside the action, once, in both languages.
 */
export interface OperationNote {
  /** Said only while each of these fields of the row holds a value. */
  whenSet?: readonly string[]
  /** Said only while each of these fields of the row is empty (null or blank). */
  whenEmpty?: readonly string[]
  /** `{field}` is the row's value of that field as people read it: a reference's label, an option's label. */
  text: Label
}

/** How long a state may last before the row is overdue: calendar or working days (Mon–Fri), configurable by key. */
export interface StateDeadline {
  days: number
  workingDays?: boolean
  /** A system configuration key whose whole-number value overrides `days`. */
  configKey?: string
}

/**
 * A step nobody takes by hand (a collection the customer never sent closes after 30 days): the engine
 * takes it for each row that has stayed in one of its `from` states for `after`, counted from the
 * last step that brought the row into that state (a step that stays, a remark, does not restart it;
 * a row no step has moved counts from its creation). It runs as the server's sweep
 * `{entity}.{name}` (once per tick across instances, listed under Monitoring › Jobs), as the user
 * 'system', with the guards, history and after-hooks of any step. It has no route, button or
 * permission: nobody may take it early.
 */
export interface TimedStep {
  /** camelCase: names its sweep and its history rows. */
  name: string
  /** The history's wording and the jobs page's ('Close: bike never sent'). */
  label: Label
  from: readonly string[]
  to: string
  /** How long a row stays in a `from` state before the step is taken; `configKey` makes it a setting. */
  after: StateDeadline
}

export interface Transitions {
  /** An `enum` field: its options are the states; it is never written by add, modify or import. */
  field: string
  /** The state a new row starts in; default the first option. */
  initial?: string
  steps: readonly TransitionStep[]
  /** Steps the engine takes when a row has waited long enough in a state (TimedStep). */
  timed?: readonly TimedStep[]
  /**
   * Due times: a `datetime` field the engine sets on entering a state listed in `due` (and clears
   * otherwise); a row past it is overdue while its state is not final.
   */
  deadline?: { field: string; due: Partial<Record<string, StateDeadline>> }
}

/**
 * A named operation beyond add/modify/delete (generate, push, publish, unbind, evaluate): a toolbar
 * button, a row button or a button for the selected rows. The server module supplies its handler.
 */
export interface ActionDef {
  name: string
  label: Label
  /** toolbar: no rows; row: one row (`POST {path}/{id}/action/{name}`); selection: `ids`. */
  on: 'toolbar' | 'row' | 'selection'
  /** sync: answered at once; job: queued, its progress shown while it runs. */
  mode?: 'sync' | 'job'
  /** Default `${entity.permission}:${name}`. */
  permission?: string
  input?: readonly FieldDef[]
  confirm?: Label
  danger?: boolean
  /** Offered for rows whose field has one of these values only (evaluate a finished order); the server checks it too. */
  when?: { field: string; is: readonly string[] }
  /**
   * Offered only while these fields of the row are empty (null or blank): evaluate an order that has
   * no evaluation yet. The server checks it too.
   */
  whenEmpty?: readonly string[]
  /**
   * The dialog shows what the action would do before it is confirmed: it asks
   * `POST {action route}/preview` with the input as the user types (the module's `previews` handler)
   * and shows the answer's facts. An answer with `secondConfirm` makes the dialog ask once more with
   * that text, and the action is then sent with `confirmed: true` (the handler refuses without it):
   * frame numbers generated past the 5 % rule.
   */
  preview?: boolean
  /**
   * Fields of the row its dialog shows beside the input, read as the details show them (the
   * feedback's member, stars, tags, text and images beside the reply box): what the user decides on.
   */
  context?: readonly string[]
  /** What the action does beyond the row, said in its dialog from the row's values (a row action's; OperationNote). */
  notes?: readonly OperationNote[]
  /**
   * Offered after the row's other actions (in its More menu once there are more than two), not first
   * like the steps a row waits for: an administrator's seldom-needed remedy (reset a user's second factors).
   */
  rare?: boolean
  /**
   * A dangerous action (reset a user's second factors): it asks for a second proof (the second
   * factor, or the password) unless one was given in the last few minutes, and a role holding its
   * permission requires a second factor. The server enforces it; the console asks and repeats the call.
   */
  stepUp?: boolean
  /**
   * Rights its user must hold besides its permission, every one of them: checked by its route (403
   * naming what is missing, before anything is queued), by its job when it runs, and by the console
   * before it offers the action. A rider's data package carries every personal value unmasked, so it
   * also needs each `member:pii:*` right: the permission alone would bypass the masks.
   */
  alsoNeeds?: readonly string[]
  /**
   * A job action's file is deleted this many days after the job finished, sooner than
   * JOB_RETENTION_DAYS (the job's row stays until then): a rider's data package (DATA_PACKAGE_DAYS).
   */
  keepFileDays?: number
}

/** What an action's preview answers, in the caller's language (docs/entity-engine.md › Actions). */
export interface ActionPreview {
  /** Label and value pairs: "Format" "VL A T MET ###### C", "Example" "VLATMET000101X". */
  facts: { label: string; value: string }[]
  /** Said beside the facts in orange (the action is allowed but unusual). */
  warning?: string
  /** The action needs a second confirmation with this text; it is then sent with `confirmed: true`. */
  secondConfirm?: string
}

/**
 * A condition on a row's stored values: a field holds one of these values (states of its status,
 * enum or text), or a number field is above a value (an order with frame numbers: numbersGenerated
 * above 0).
 */
export type RowCondition = { field: string; is: readonly string[] } | { field: string; above: number }

/**
 * What a row still allows while it meets a condition (docs/entity-engine.md › State rules): the
 * fields a modify may still change and whether it may be deleted. The server refuses the rest (409
 * naming the row and why, nothing changed); the console offers no button for it and locks the
 * fields. Several rules a row meets add up: a field stays editable only if each of them allows it.
 */
export interface StateRule {
  when: RowCondition
  /** The fields a modify may still change (none: the row is read-only); omitted: every field. */
  edit?: readonly string[]
  /** `false`: the row cannot be deleted. Default true. */
  delete?: boolean
  /**
   * Why, as a clause after the row's name ("Cannot delete bike order PO-1: it has frame numbers");
   * default "it is <state>" (the condition's value as people read it). Required with `above`.
   */
  reason?: Label
}

export type Operation = 'list' | 'get' | 'add' | 'edit' | 'remove' | 'export' | 'import'

/** The period a summary adds rows up by (UTC; weeks start on Monday). */
export type SummaryBucket = 'day' | 'week' | 'month'
export const SUMMARY_BUCKETS: readonly SummaryBucket[] = ['day', 'week', 'month']

/** One period of POST {path}/summary: its first day, the sum of the value (0 without one) and the rows in it. */
export interface SummaryPoint {
  bucket: string
  value: number
  count: number
}

/**
 * A small chart above a related list: the related rows of the last `weeks` weeks added up per
 * period, from POST {path}/summary of the related entity ("distance per week").
 */
export interface RelatedChart {
  /** A `date` or `datetime` field of the related entity: the period a row falls in. */
  time: string
  /** A `number` or `money` field of the related entity marked `summable`; without one the rows are counted. */
  value?: string
  /** One bar per day, week (Monday to Sunday) or month. */
  by: SummaryBucket
  /** How far back the chart reaches, in weeks; default 12. */
  weeks?: number
  /** Default bar. */
  type?: 'bar' | 'line'
}

/**
 * Rows of another entity that belong to this one, shown in a row's details: the rows of `entity`
 * whose reference field `by` holds this row's id (a member's bikes and rides, a model's colours).
 * They are read through that entity's own list (POST {path}/list with `{ [by]: id }`), so `by` must
 * be a reference to this entity searched with 'eq', and the user needs that entity's `:list`.
 */
export interface RelatedList {
  /** The related entity's key. */
  entity: string
  /** Its `reference` field that points at this entity (search: 'eq'). */
  by: string
  /** The section's title; default the related entity's label. */
  label?: Label
  /** Its fields shown, in order; default its list columns but `by`. */
  columns?: readonly string[]
  /** Rows per page; default 10. */
  pageSize?: number
  chart?: RelatedChart
  /**
   * The tab shows the related entity's whole list page fixed to this row (`{ [by]: id }`): its
   * search, status filter with counts, toolbar (export) and row actions — an order's frame numbers,
   * voided and exported from the order. Default: a compact read-only table.
   */
  manage?: boolean
  /**
   * Row actions and steps of the related entity (by name) the compact table offers on each row, as
   * its list page does: only for rows whose state allows them and to users holding their permission,
   * with the same dialogs (a member's bikes, unbound from the member's details). A `manage` list
   * offers every one already.
   */
  actions?: readonly string[]
}

/**
 * What the riders' app may read of an entity (`GET {API_PREFIX}/app/v1/{path}`, public and cacheable):
 * only these fields, only published rows, in their time window, for the asked language and country.
 * Everything else (drafts, remarks, who made it) never reaches the app: the answer's schema is these
 * fields alone.
 */
export interface AppRead {
  /** The route segment under /app/v1 ('banners'). */
  path: string
  /** The fields answered, in order (the id is always answered). */
  fields: readonly string[]
  /** Only rows whose field holds one of these values (status '0', published). */
  published?: { field: string; is: readonly string[] }
  /** Only rows whose [start, end] holds now; an empty end is open. */
  window?: { start: string; end: string }
  /** `?lang=` keeps the rows of that language (an `enum` field of APP_LANGUAGES values); required then. */
  language?: string
  /** `?country=` (a country code) keeps the rows of that country and those of none (a reference to country). */
  country?: string
  /** More `?field=value` filters the app may pass (eq on enum, dict or reference fields). */
  filters?: readonly string[]
  /** Default the entity's default sort. */
  sort?: { field: string; order: 'asc' | 'desc' }
}

/**
 * How an entity's rows belong to the caller's data scope. A row is in scope when any declared owner
 * is: its department among the caller's departments (`dept`), its country among those departments'
 * countries (`country`), the row it refers to through `via` in scope (by that entity's own
 * declaration), a row of `heldBy.entity` in scope referring to it through `heldBy.field`, or, for
 * "personal only", `person` naming the caller (a reference to the user, or the audit column
 * `createBy`, the user name). `none` says the rows are nobody's (settings, catalogues), and why.
 */
export type ScopeDef =
  | {
      dept?: string
      country?: string
      via?: string
      heldBy?: { entity: string; field: string }
      person?: string
      none?: never
    }
  | { none: Label; dept?: never; country?: never; via?: never; heldBy?: never; person?: never }

export interface EntityDef {
  key: string
  /** Kysely table name (camelCase of the SQL table). */
  table: string
  /** API path below the prefix, e.g. '/system/dict'. */
  path: string
  /** Permission prefix 'area:entity'; actions are appended (list, query, add, edit, remove, export, import). */
  permission: string
  /** The name of the list, as menus and page titles show it ('System users', '用户管理'). */
  label: Label
  /**
   * One row's name as it reads inside a sentence ('user', 'IoT model'; '用户'): dialog titles say
   * "Add user" and "新增用户". Default: derived from the label (singularOf).
   */
  singular?: Label
  idField: string
  /** The field that names a row to people (references, delete confirmations); default the first text field. */
  labelField?: string
  /**
   * The field that names a row in another language, where the table keeps the name in several
   * (a country's Chinese name beside its English one): lists' `<name>Label`, details, pickers and
   * exports name the row in the caller's language, as the dashboards do (labelFieldIn).
   */
  labelFieldByLanguage?: Partial<Record<Language, string>>
  /**
   * Rows that change without a request (a device's state, as it reports): GET `stream` sends
   * server-sent `event`s whose data has the row's id field and its changed fields. Lists showing the
   * rows' fields through a reference's `carry` follow them there.
   */
  live?: { stream: string; event: string }
  fields: readonly FieldDef[]
  defaultSort: { field: string; order: 'asc' | 'desc' }
  /** Default: all but import. */
  operations?: readonly Operation[]
  /**
   * Whose rows these are, for the role's data scope (docs/entity-engine.md › Data scope). Every entity
   * a server serves declares it: an owner (a department, a country, what it refers to or what refers
   * to it, a person), or `none` with the reason it has no owner. The server refuses to start on an
   * entity without one.
   */
  scope?: ScopeDef
  /** The table beyond the fields: audit columns, columns no field shows, indexes (docs/entity-engine.md › Table shape). */
  storage?: StorageDef
  /** A status that changes only through named steps. */
  transitions?: Transitions
  /**
   * What a row's state still allows: per condition (states of a field, a counter above a value), the
   * fields a modify may change and whether the row may be deleted (StateRule).
   */
  states?: readonly StateRule[]
  actions?: readonly ActionDef[]
  /** Lists of other entities' rows that refer to a row of this one, in its details (RelatedList). */
  related?: readonly RelatedList[]
  /** What the riders' app reads of it (AppRead). */
  app?: AppRead
  /**
   * The entity is one slice of a table it shares with other definitions (the firmware of one bike
   * part among the four): every read, write, reference check and count sees only the rows whose
   * `column` (a storage column, never a field) holds `value`, and a new row gets it. The definitions
   * sharing a table must give it the same shape; each keeps its own path and permission.
   */
  slice?: { column: string; value: string }
  /**
   * How its rows belong to one rider, for the rider's requests (GDPR Art. 15, 17, 20; docs/privacy.md
   * › Requests): their data package holds these rows, their erasure treats them as `erase` says. Every
   * entity with a reference to members, a personal field or a personal key declares it (a generated
   * test holds that), so a new table cannot be left out of a package or an erasure.
   */
  rider?: RiderData
}

/** Which rows of an entity are one rider's: by a field naming the member (a reference or a list of them), their e-mail, or their bikes' device. */
export type RiderLink =
  | { member: string }
  | { email: string }
  /** Rows of the devices fitted to the rider's bikes; with `since`, only those of the time since the bike was bound to them (not a previous owner's). */
  | { device: string; since?: string }

/**
 * What a rider's erasure does with their rows. `anonymise`: personal fields emptied (a required one
 * gets a stand-in), personal keys taken out of JSON, their files deleted; the row stays for the
 * statistics. `delete`: the rows go, with their files. `unbind`: the link to the member is emptied
 * (and `unbound` written). `keep`: nothing personal is left in it once the member row is anonymous.
 */
export interface RiderData {
  by: RiderLink
  erase: 'anonymise' | 'delete' | 'unbind' | 'keep'
  /** Values written with an unbind or an anonymisation besides (a bike's bind status; a member's disabled status). */
  set?: Readonly<Record<string, string | number | boolean | null>>
  /**
   * Erasure is refused while one of the rider's rows holds it, with this reason ({label}: the row's
   * label, {value}: the field's): with `isNot`, while the field is in none of these states (an open
   * service order); without, while the field has a value (a legal hold staff wrote on the member).
   */
  hold?: { field: string; isNot?: readonly string[]; reason: Label }
  /** Not in the data package: says why (a row of statistics the rider gave nothing to). */
  package?: false
}

/**
 * A column the table keeps that no field shows (a key, a secret's hash, a counter, a soft-delete
 * flag): only the server reads and writes it. Stored as a field of the same kind would be.
 */
export interface ColumnDef {
  /** camelCase, as a field's name. */
  name: string
  kind: 'text' | 'longText' | 'number' | 'boolean' | 'date' | 'datetime' | 'reference'
  /** Text: the varchar length (none: unbounded text). Number: the largest value (beyond 2^31 a bigint). */
  max?: number
  int?: boolean
  /** Always written: NOT NULL without a default unless one is given. */
  required?: boolean
  nullable?: boolean
  default?: string | number | boolean
  unique?: boolean
  /** Holds a secret (a hash, a key): SQL execution never reads it (server modules/tool/sql/secrets.ts). */
  secret?: boolean
}

/** An index of the table; `name` defaults to `<table>_<columns>` in snake_case. */
export interface IndexDef {
  name?: string
  /** Field or column names (camelCase), in index order. */
  columns: readonly string[]
  unique?: boolean
}

export interface StorageDef {
  /** create_by, create_time, update_by, update_time and remark, as every audited table has them; default true. */
  audited?: boolean
  columns?: readonly ColumnDef[]
  indexes?: readonly IndexDef[]
}
