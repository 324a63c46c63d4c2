import type { ResolvedEntity } from './define'
import type { ScopeDef } from './types'

/** An owner declaration (not `none`). */
export type OwnedScope = Exclude<ScopeDef, { none: unknown }>

/** The entity's owner declaration, or null when its rows are declared nobody's. */
export function ownerOf(e: ResolvedEntity): OwnedScope | null {
  if (!e.scope || e.scope.none !== undefined) return null
  return e.scope as OwnedScope
}

/**
 * What is wrong with an entity's scope once every definition is known: none declared, a `via` to an
 * entity whose rows have no owner (its rows would all be in scope, which is no rule), a `heldBy` that
 * is not a reference to this entity, or a chain that comes back to where it started. The server
 * refuses to start on any of these (registerEntityRoutes), so a new module cannot forget its scope.
 */
export function scopeProblems(e: ResolvedEntity, byKey: (key: string) => ResolvedEntity | undefined): string[] {
  if (!e.scope) {
    return [`${e.key} declares no scope: say whose its rows are (scope: { country | via | heldBy | dept | person }) or scope: { none: { en_US, zh_CN } } with the reason it has none (docs/entity-engine.md › Data scope)`]
  }
  const problems: string[] = []
  const visit = (entity: ResolvedEntity, path: string[]) => {
    const owner = ownerOf(entity)
    if (!owner) return
    const next: ResolvedEntity[] = []
    if (owner.via) {
      const f = entity.fieldMap.get(owner.via)
      const target = f?.kind === 'reference' ? byKey(f.entity) : undefined
      if (!target) problems.push(`${entity.key}: scope.via ${owner.via} refers to no registered entity`)
      else if (!ownerOf(target)) problems.push(`${entity.key}: scope.via ${owner.via} goes to ${target.key}, whose rows have no owner (scope.none): a row would be in everyone's scope`)
      else next.push(target)
    }
    if (owner.heldBy) {
      const holder = byKey(owner.heldBy.entity)
      const f = holder?.fieldMap.get(owner.heldBy.field)
      if (!holder) problems.push(`${entity.key}: scope.heldBy names no registered entity ${owner.heldBy.entity}`)
      else if (f?.kind !== 'reference' || f.entity !== entity.key) problems.push(`${entity.key}: scope.heldBy ${holder.key}.${owner.heldBy.field} must be a reference to ${entity.key}`)
      else if (!ownerOf(holder)) problems.push(`${entity.key}: scope.heldBy ${holder.key}, whose rows have no owner (scope.none)`)
      else next.push(holder)
    }
    for (const target of next) {
      if (path.includes(target.key)) problems.push(`${e.key}: scope goes round in a circle (${[...path, target.key].join(' → ')})`)
      else visit(target, [...path, target.key])
    }
  }
  visit(e, [e.key])
  return problems
}

/** What limits an entity's rows, following its `via` and `heldBy` to where an owner is named. */
export function scopeReach(e: ResolvedEntity, byKey: (key: string) => ResolvedEntity | undefined, seen: readonly string[] = []): { dept: boolean; country: boolean; person: boolean } {
  const out = { dept: false, country: false, person: false }
  const owner = ownerOf(e)
  if (!owner || seen.includes(e.key)) return out
  out.dept = !!owner.dept
  out.country = !!owner.country
  out.person = !!owner.person
  const next = [owner.via ? byKey((e.fieldMap.get(owner.via) as { entity?: string } | undefined)?.entity ?? '') : undefined, owner.heldBy ? byKey(owner.heldBy.entity) : undefined]
  for (const target of next) {
    if (!target) continue
    const r = scopeReach(target, byKey, [...seen, e.key])
    out.dept ||= r.dept
    out.country ||= r.country
    out.person ||= r.person
  }
  return out
}
