import { heartbeatPayload, telemetryPayload } from '@velo/shared'
import type { z } from 'zod'

/*
 * The two payloads devices send thousands of times a second, telemetry and heartbeats, checked
 * before their zod schemas (@velo/shared, iot/protocol-payloads.ts): at a fleet's rate zod's walk
 * and the copy it answers were a measurable share of the ingest's CPU and garbage. The check is made
 * from the schema itself (its keys, numbers' bounds, literals), so the protocol's rules stay in one
 * place; it only ever says yes for what the schema takes unchanged, and anything else (a key the
 * schema does not know and would strip, a value out of bounds, a type it would refuse) is left to
 * the schema, whose answer and messages stay the ones that count. A schema holding what the check
 * cannot read gets no check: zod decides all of its payloads. test/iot-ingest-payloads.test.ts
 * holds both to the same answers.
 */

type Plain = Record<string, unknown>
type Check = (value: unknown) => boolean
/** What the check reads of a schema's definition (zod 4's `_zod.def`). */
interface Def {
  type: string
  checks?: { _zod: { def: { check: string; format?: string; value?: number; inclusive?: boolean } } }[]
  values?: unknown[]
  shape?: Record<string, z.ZodType>
  catchall?: unknown
  innerType?: z.ZodType
}

const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v)
const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def

/** A number's checks: bounds (inclusive or not) and zod's int (a safe integer); undefined for any other. */
function numberCheck(def: Def): Check | undefined {
  let min = -Infinity
  let max = Infinity
  let minIncluded = true
  let maxIncluded = true
  let int = false
  for (const c of def.checks ?? []) {
    const d = c._zod.def
    if (d.check === 'number_format' && d.format === 'safeint') int = true
    else if (d.check === 'greater_than') [min, minIncluded] = [d.value!, d.inclusive!]
    else if (d.check === 'less_than') [max, maxIncluded] = [d.value!, d.inclusive!]
    else return undefined
  }
  return (v) =>
    typeof v === 'number' && Number.isFinite(v) && (!int || Number.isSafeInteger(v)) && (minIncluded ? v >= min : v > min) && (maxIncluded ? v <= max : v < max)
}

/** An object's keys, each optional or required, with the check of its value; undefined for a catch-all or an unreadable key. */
function objectCheck(def: Def): Check | undefined {
  if (def.catchall !== undefined || !def.shape) return undefined
  const keys = new Map<string, { check: Check; required: boolean }>()
  for (const [key, schema] of Object.entries(def.shape)) {
    const optional = defOf(schema).type === 'optional'
    const check = checkOf(optional ? defOf(schema).innerType! : schema)
    if (!check) return undefined
    keys.set(key, { check, required: !optional })
  }
  const required = [...keys.values()].filter((k) => k.required).length
  return (v) => {
    if (!isPlain(v)) return false
    let found = 0
    for (const key in v) {
      const k = keys.get(key)
      if (!k || !k.check(v[key])) return false
      if (k.required) found++
    }
    return found === required
  }
}

/** The check of a schema, or undefined where it holds more than numbers, booleans, literals and plain objects. */
function checkOf(schema: z.ZodType): Check | undefined {
  const def = defOf(schema)
  switch (def.type) {
    case 'number':
      return numberCheck(def)
    case 'boolean':
      return (v) => typeof v === 'boolean'
    case 'literal':
      return (v) => def.values!.includes(v)
    case 'object':
      return objectCheck(def)
    default:
      return undefined
  }
}

const CHECKS: Record<string, Check | undefined> = { telemetry: checkOf(telemetryPayload), heartbeat: checkOf(heartbeatPayload) }

/**
 * The payload itself when it is a telemetry report or heartbeat its schema takes as it is (the
 * schema's answer would be an equal copy); undefined when the schema has to decide.
 */
export function checkedByHand(kind: string, value: unknown): Plain | undefined {
  const check = CHECKS[kind]
  return check && isPlain(value) && check(value) ? value : undefined
}
