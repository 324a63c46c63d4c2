import { z } from 'zod'
import { labelWithUnit } from '../duration'
import { type GeometryReason, parseGeometry } from '../geometry'
import { EMAIL_PATTERN, IMAGE_EXTENSIONS, isTimeZone, letterCodePattern, PASSWORD_PATTERN, PHONE_PATTERN, VERSION_PATTERN } from '../validation'
import type { ResolvedEntity } from './define'
import type { FieldDef, FieldKind, Label, TextCheck } from './types'

// The value rules of every field kind, written once (issue 13): the server checks requests with
// these schemas and the web form's rules run the very same ones, so the form refuses what the
// server would (it used to mirror the rules by hand and missed some, money's two decimals among
// them). Messages are data, not text: each side says a problem in its own catalogue and language.

/** Why a value was refused, for each side to put in words (server: i18n/zod-messages.ts; web: i18n). */
export type FieldProblem =
  | { rule: 'required' }
  /** Not even the right JSON type (a string for a number, 'yes' for a boolean). */
  | { rule: 'type'; expected: 'text' | 'number' | 'boolean' | 'list' }
  | { rule: 'minLength'; min: number }
  | { rule: 'maxLength'; max: number }
  | { rule: 'min'; min: number }
  | { rule: 'max'; max: number }
  | { rule: 'integer' }
  | { rule: 'decimals'; places: number }
  /** A text field's own pattern, said in the definition's words when it gives them. */
  | { rule: 'pattern'; message?: Label }
  | { rule: 'enum'; values: string[] }
  | { rule: 'date' }
  | { rule: 'datetime' }
  | { rule: 'storedFile' }
  | { rule: 'fileType'; accept: string[] }
  | { rule: 'version' }
  | { rule: 'letterCode'; max: number }
  | { rule: 'email' }
  | { rule: 'phone' }
  | { rule: 'password' }
  /** A reference that names no row (0, a negative id). */
  | { rule: 'choose' }
  | { rule: 'timeZone' }
  /** The last digit is not the check digit of the others (a mistyped ICCID). */
  | { rule: 'checkDigit'; check: TextCheck }
  /** Not a shape a geometry field takes (geometry.ts says which). */
  | { rule: 'geometry'; reason: GeometryReason }

export type FieldProblemRule = FieldProblem['rule']

/** A problem with the label of the field it is about. */
export type FieldIssue = FieldProblem & { label: Label }

// A zod message is a string, and schemas are built before anyone knows the reader's language: the
// problem travels in the message as marked JSON, which fieldIssueOf reads back.
const MARK = '\u0001field:'

// A duration's limits are in its stored unit, which its label leaves out: the message names it.
const say = (f: FieldDef, problem: FieldProblem) => MARK + JSON.stringify({ ...problem, label: labelWithUnit(f) })

/** The problem a message of these schemas carries; null for any other message. */
export function fieldIssueOf(message: string | undefined): FieldIssue | null {
  if (!message?.startsWith(MARK)) return null
  try {
    return JSON.parse(message.slice(MARK.length)) as FieldIssue
  } catch {
    return null
  }
}

/** What the side that checks adds to the shared rules. */
export interface ValueSchemaOptions {
  /**
   * Rich text as stored: the server sanitizes it here (sanitize-html is a server library). The web
   * leaves it out: it only asks whether a value would pass.
   */
  richText?: (html: string) => string
}

/** Kinds sent as strings, where an optional field may come back blank (''). */
const NOT_STRINGS: ReadonlySet<FieldKind> = new Set(['number', 'money', 'boolean', 'datetime', 'date', 'reference', 'referenceMany', 'treeParent'])
export const isStringKind = (f: FieldDef) => !NOT_STRINGS.has(f.kind)

const STORED_FILE = /^[A-Za-z0-9][A-Za-z0-9/_.-]*$/
const extensionOf = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase()
/** Money's largest amount by default: what numeric(12,2) holds. */
export const MONEY_MAX = 9_999_999_999.99

/**
 * Luhn (ISO/IEC 7812-1, mod 10): from the right, every second digit doubled (less 9 past 9), the sum a
 * multiple of 10. It catches every single mistyped digit and most swaps of neighbours.
 */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** The digits with their Luhn check digit appended. */
export function withLuhnDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d
  throw new Error(`not digits: ${body}`)
}

const CHECK_DIGITS: Record<TextCheck, (digits: string) => boolean> = { luhn: luhnValid }

/** The schema of one field's value as clients send it, without "required" (see writeSchema). */
export function valueSchema(f: FieldDef, options: ValueSchemaOptions = {}): z.ZodType {
  const problem = (p: FieldProblem) => say(f, p)
  // A missing value is "required" in every kind's words; any other wrong type says what is expected.
  const typed = (expected: 'text' | 'number' | 'boolean' | 'list') => ({
    error: (iss: { input?: unknown }) => problem(iss.input === undefined || iss.input === null ? { rule: 'required' } : { rule: 'type', expected }),
  })
  const orElse = (p: FieldProblem) => ({
    error: (iss: { input?: unknown }) => problem(iss.input === undefined || iss.input === null ? { rule: 'required' } : p),
  })
  const text = () => z.string(typed('text'))
  const maxChars = (s: z.ZodString, max: number) => s.max(max, problem({ rule: 'maxLength', max }))
  const storedFile = (accept: readonly string[]) =>
    text()
      .trim()
      .max(255, problem({ rule: 'maxLength', max: 255 }))
      .regex(STORED_FILE, problem({ rule: 'storedFile' }))
      .refine((v) => !v.includes('..'), problem({ rule: 'storedFile' }))
      .refine((v) => accept.includes(extensionOf(v)), problem({ rule: 'fileType', accept: [...accept] }))
  const id = () => z.number(typed('number')).int(problem({ rule: 'integer' }))
  switch (f.kind) {
    case 'text': {
      let s = text().trim()
      if (f.max) s = maxChars(s, f.max)
      if (f.min) s = s.min(f.min, problem({ rule: 'minLength', min: f.min }))
      if (f.pattern) s = s.regex(f.pattern, problem({ rule: 'pattern', message: f.patternMessage }))
      if (f.check) {
        const check = f.check
        // Only a value of digits has a check digit to be wrong; anything else is the pattern's to refuse.
        return s.refine((v) => !/^\d+$/.test(v) || CHECK_DIGITS[check](v), problem({ rule: 'checkDigit', check }))
      }
      return s
    }
    case 'longText':
      return maxChars(text(), f.max ?? 65535)
    case 'richText': {
      const html = maxChars(text(), f.max ?? 1_000_000)
      return options.richText ? html.transform(options.richText) : html
    }
    case 'number': {
      let n = z.number(typed('number'))
      if (f.int) n = n.int(problem({ rule: 'integer' }))
      if (f.min !== undefined) n = n.min(f.min, problem({ rule: 'min', min: f.min }))
      if (f.max !== undefined) n = n.max(f.max, problem({ rule: 'max', max: f.max }))
      return n
    }
    case 'money': {
      const min = f.min ?? 0
      const max = f.max ?? MONEY_MAX
      return z
        .number(typed('number'))
        .min(min, problem({ rule: 'min', min }))
        .max(max, problem({ rule: 'max', max }))
        .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, problem({ rule: 'decimals', places: 2 }))
        .transform((v) => Math.round(v * 100) / 100)
    }
    case 'boolean':
      return z.boolean(typed('boolean'))
    case 'dict': {
      // Whether the value is in the dictionary is the database's to say (the server checks it on write).
      const max = f.max ?? 100
      return text().trim().max(max, problem({ rule: 'maxLength', max }))
    }
    case 'enum': {
      const values = f.options.map((o) => o.value)
      return text().refine((v) => values.includes(v), problem({ rule: 'enum', values }))
    }
    case 'date':
      return z.iso.date(orElse({ rule: 'date' }))
    case 'datetime':
      return z.iso.datetime({ offset: true, ...orElse({ rule: 'datetime' }) }).transform((v) => new Date(v).toISOString())
    case 'image':
      return storedFile(IMAGE_EXTENSIONS)
    case 'file':
      return storedFile(f.accept)
    case 'version':
      return text().trim().regex(VERSION_PATTERN, problem({ rule: 'version' }))
    case 'letterCode': {
      const max = f.max ?? 2
      return text()
        .trim()
        .regex(letterCodePattern(max), problem({ rule: 'letterCode', max }))
        .transform((v) => v.toUpperCase())
    }
    case 'email': {
      const max = f.max ?? 128
      return text().trim().max(max, problem({ rule: 'maxLength', max })).regex(EMAIL_PATTERN, problem({ rule: 'email' }))
    }
    case 'phone':
      return text().trim().regex(PHONE_PATTERN, problem({ rule: 'phone' }))
    case 'password':
      return text().regex(PASSWORD_PATTERN, problem({ rule: 'password' }))
    case 'reference':
      return id().positive(problem({ rule: 'choose' }))
    case 'referenceMany':
      return z.array(id().positive(problem({ rule: 'choose' })), typed('list')).max(10_000, problem({ rule: 'type', expected: 'list' }))
    case 'treeParent':
      // 0 is the root.
      return id().min(0, problem({ rule: 'choose' }))
    case 'timeZone':
      return text().trim().refine(isTimeZone, problem({ rule: 'timeZone' }))
    case 'geometry':
      // Stored normalized: a Feature or a one-feature collection is kept as its geometry.
      return text().transform((v, ctx) => {
        const parsed = parseGeometry(v)
        if (parsed.ok) return JSON.stringify(parsed.geometry)
        ctx.addIssue({ code: 'custom', message: problem({ rule: 'geometry', reason: parsed.reason }) })
        return z.NEVER
      })
    default:
      return assertNever(f)
  }
}

function assertNever(f: never): never {
  throw new Error(`no value schema for the kind of ${JSON.stringify(f)}`)
}

/**
 * Where a value is checked: a request adding a row (a required field with a default may be left
 * out, the default fills it), one modifying a row (any field may be left out, none blanked if
 * required), or a form, where a required field must be filled in, default or not.
 */
export type WriteMode = 'add' | 'edit' | 'form'

/** A field's value as written: required means present and not blank; optional text may be sent empty. */
export function writeSchema(f: FieldDef, mode: WriteMode, options: ValueSchemaOptions = {}): z.ZodType {
  const base = valueSchema(f, options)
  const isText = isStringKind(f)
  if (f.required) {
    // Blank is "missing", whatever the field's format rules would say about it; so is an empty list.
    const missing = say(f, { rule: 'required' })
    const blank = { error: (iss: { input?: unknown }) => (iss.input === undefined || iss.input === null ? missing : say(f, { rule: 'type', expected: 'text' })) }
    const strict = isText
      ? z.string(blank).trim().min(1, missing).pipe(base as z.ZodType<unknown, string>)
      : f.kind === 'referenceMany'
        ? z.array(z.unknown(), { error: (iss) => (iss.input === undefined || iss.input === null ? missing : say(f, { rule: 'type', expected: 'list' })) }).min(1, missing).pipe(base as z.ZodType<unknown, unknown[]>)
        : base
    if (mode === 'form') return strict
    const hasDefault = 'default' in f && f.default !== undefined
    if (hasDefault) return strict.nullish()
    return mode === 'add' ? strict : strict.optional()
  }
  if (!isText) return base.nullish()
  // When neither '' nor the value fits, zod answers "invalid union"; the value's own problem is the one to say.
  const ownProblem = (iss: { code?: string; errors?: { message?: string }[][] }) => (iss.code === 'invalid_union' ? iss.errors?.[1]?.[0]?.message : undefined)
  return z.union([z.literal(''), base], { error: ownProblem }).nullish()
}

/** Add: every writable field. */
export function addSchema(e: ResolvedEntity, options: ValueSchemaOptions = {}) {
  return z.object(Object.fromEntries(e.writable.map((f) => [f.name, writeSchema(f, 'add', options)])))
}

/** One import row: the template's columns, checked as on add. */
export function importRowSchema(columns: readonly FieldDef[], options: ValueSchemaOptions = {}) {
  return z.object(Object.fromEntries(columns.map((f) => [f.name, writeSchema(f, 'add', options)])))
}

/** The fields a modify may change: immutable fields and passwords are not among them (and are dropped if sent). */
export const editableFields = (e: ResolvedEntity) => e.writable.filter((f) => !f.immutable && f.kind !== 'password')

/** Modify: the id and any editable field. */
export function editSchema(e: ResolvedEntity, options: ValueSchemaOptions = {}) {
  const id = z.number().int().positive()
  return z.object({ [e.idField]: id, ...Object.fromEntries(editableFields(e).map((f) => [f.name, writeSchema(f, 'edit', options)])) })
}
