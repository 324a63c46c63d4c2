import { allEntities, type ResolvedEntity, type RiderData } from '@velo/shared'
import type { Expression, SqlBool } from 'kysely'
import { sql } from 'kysely'
import type { Db, DynamicEb } from '../../db/database'

// Which rows are one rider's, read from the definitions' `rider` declarations (shared entity/types.ts
// RiderData): their data package (Art. 15, 20) and their erasure (Art. 17) both start here, so a table
// a new module adds is in both as soon as its definition says how its rows belong to a rider.

/** An entity whose rows can be a rider's, with its declaration. */
export interface RiderEntity {
  entity: ResolvedEntity
  rider: RiderData
}

/** Every entity that declares how its rows belong to a rider, the member first. */
export function riderEntities(): RiderEntity[] {
  const found = allEntities().flatMap((entity) => (entity.rider ? [{ entity, rider: entity.rider }] : []))
  return found.sort((a, b) => Number(b.entity.key === 'member') - Number(a.entity.key === 'member'))
}

/**
 * What is wrong with an entity's rider declaration: it names real fields of the right kinds. Checked
 * when the server registers the entity (the start fails), not by defineEntity: the console never reads
 * the declaration, and the browser would carry the check on its first screen.
 */
export function riderProblems(e: ResolvedEntity): string[] {
  const r = e.rider
  if (!r) return []
  const where = `${e.key}: rider`
  const problems: string[] = []
  const kindOf = (name: string) => e.fieldMap.get(name)?.kind
  const names = (name: string, entity: string) => (name === e.idField ? e.key === entity : (e.fieldMap.get(name) as { entity?: string } | undefined)?.entity === entity)
  if ('member' in r.by && !names(r.by.member, 'member')) problems.push(`${where}.by.member ${r.by.member} must refer to member (or be the id of member)`)
  if ('email' in r.by && !['email', 'text'].includes(kindOf(r.by.email) ?? '')) problems.push(`${where}.by.email ${r.by.email} must be an email (or text) field`)
  if ('device' in r.by && !names(r.by.device, 'iotDevice')) problems.push(`${where}.by.device ${r.by.device} must refer to iotDevice (or be the id of iotDevice)`)
  if ('device' in r.by && r.by.since && kindOf(r.by.since) !== 'datetime') problems.push(`${where}.by.since ${r.by.since} must be a datetime field`)
  if (r.hold && !e.fieldMap.has(r.hold.field)) problems.push(`${where}.hold ${r.hold.field} is not a field`)
  for (const name of Object.keys(r.set ?? {})) {
    if (!e.fieldMap.has(name) && !e.storage?.columns?.some((c) => c.name === name)) problems.push(`${where}.set ${name} is neither a field nor a storage column`)
  }
  return problems
}

/** A device fitted to one of the rider's bikes, and since when the bike is theirs (null: no bound time kept). */
export interface RiderDevice {
  deviceId: number
  since: string | null
}

/** What identifies a rider's rows: their member id, their e-mail, and their bikes' devices. */
export interface Rider {
  memberId: number
  email: string
  devices: RiderDevice[]
}

/** The rider of a member id, or undefined when there is no such member. */
export async function loadRider(db: Db, memberId: number): Promise<Rider | undefined> {
  const member = await db.selectFrom('memMember').select(['memberId', 'email']).where('memberId', '=', memberId).executeTakeFirst()
  if (!member) return undefined
  const bikes = await db.selectFrom('bikeBike').select(['iotDeviceId', 'boundTime']).where('memberId', '=', memberId).execute()
  return {
    memberId: Number(member.memberId),
    email: String(member.email),
    devices: bikes.flatMap((b) => (b.iotDeviceId === null ? [] : [{ deviceId: Number(b.iotDeviceId), since: b.boundTime === null ? null : String(b.boundTime) }])),
  }
}

/**
 * The condition that keeps a rider's rows of `e` (its table unaliased). Answers null when the entity
 * cannot hold any of them (a device link for a rider without devices): read nothing, change nothing.
 * A link through a list of members (a message's chosen members) is read through its link table.
 */
export function riderCondition(e: ResolvedEntity, rider: Rider): ((eb: DynamicEb) => Expression<SqlBool>) | null {
  const by = e.rider?.by
  if (!by) return null
  if ('member' in by) {
    const f = e.fieldMap.get(by.member)
    if (f?.kind === 'referenceMany') {
      const { table, from, to } = f.through
      return (eb) => eb(e.idField, 'in', eb.selectFrom(table).select(from).where(to, '=', rider.memberId))
    }
    return (eb) => eb(by.member, '=', rider.memberId)
  }
  // A service order's contact e-mail is typed by a person: its case is theirs, the address the same.
  if ('email' in by) return (eb) => eb(sql`lower(${sql.ref(by.email)})`, '=', rider.email.toLowerCase())
  if (!rider.devices.length) return null
  const since = by.since
  return (eb) =>
    eb.or(
      rider.devices.map((d) =>
        since && d.since !== null ? eb.and([eb(by.device, '=', d.deviceId), eb(since, '>=', d.since)]) : eb(by.device, '=', d.deviceId),
      ),
    )
}
