import { describe, expect, it } from 'vitest'
import { allEntities, chartRange, defineEntity, entityByKey, periodCount, periodsBetween, periodStart, relatedListsOf, type EntityDef, type RelatedList, type ResolvedEntity } from '../src'

const label = (en: string) => ({ en_US: en, zh_CN: en })

// The owner names its related list before the related entity exists: definitions come in any order,
// and what needs the other entity is checked when the lists are resolved.
const ownerDef = (related: readonly RelatedList[]) =>
  ({
    key: 'relOwner',
    table: 'relOwner',
    path: '/rel/owner',
    permission: 'rel:owner',
    label: label('Owners'),
    idField: 'ownerId',
    defaultSort: { field: 'ownerId', order: 'asc' },
    fields: [
      { name: 'ownerId', kind: 'number', label: label('ID'), readOnly: true },
      { name: 'name', kind: 'text', label: label('Name') },
    ],
    related,
  }) satisfies EntityDef

const trip = defineEntity({
  key: 'relTrip',
  table: 'relTrip',
  path: '/rel/trip',
  permission: 'rel:trip',
  label: label('Trips'),
  idField: 'tripId',
  defaultSort: { field: 'startTime', order: 'desc' },
  fields: [
    { name: 'tripId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'ownerId', kind: 'reference', entity: 'relOwner', label: label('Owner'), search: 'eq' },
    { name: 'otherOwnerId', kind: 'reference', entity: 'relOwner', label: label('Other owner') },
    { name: 'bikeId', kind: 'reference', entity: 'relBike', label: label('Bike'), search: 'eq' },
    { name: 'startTime', kind: 'datetime', label: label('Start') },
    { name: 'distance', kind: 'number', label: label('Distance'), summable: true },
    { name: 'speed', kind: 'number', label: label('Speed') },
    { name: 'note', kind: 'text', label: label('Note'), list: false },
    { name: 'secret', kind: 'password', label: label('Secret') },
  ],
  actions: [
    { name: 'flag', label: label('Flag'), on: 'row' },
    { name: 'exportAll', label: label('Export all'), on: 'toolbar' },
  ],
})
const noList = defineEntity({ ...(ownerDef([]) as EntityDef), key: 'relNoList', table: 'relNoList', path: '/rel/nolist', permission: 'rel:nolist', operations: ['get'], related: [] })

const known = (extra: ResolvedEntity[] = []) => {
  const map = new Map([trip, noList, ...extra].map((e) => [e.key, e]))
  return (key: string) => {
    const e = map.get(key)
    if (!e) throw new Error(`no entity ${key}`)
    return e
  }
}
const resolve = (...related: RelatedList[]) => {
  const owner = defineEntity(ownerDef(related))
  return relatedListsOf(owner, known([owner]))
}

describe('related lists', () => {
  it('resolve with the related entity, its list columns but the reference, and the defaults', () => {
    const [rides] = resolve({ entity: 'relTrip', by: 'ownerId', chart: { time: 'startTime', value: 'distance', by: 'week' } })
    expect(rides!.entity).toBe(trip)
    expect(rides!.key).toBe('relTrip.ownerId')
    expect(rides!.label).toEqual(trip.label)
    expect(rides!.pageSize).toBe(10)
    expect(rides!.columns.map((f) => f.name)).toEqual(['tripId', 'otherOwnerId', 'bikeId', 'startTime', 'distance', 'speed'])
    expect(rides!.chart).toEqual({ time: 'startTime', value: 'distance', by: 'week', weeks: 12, type: 'bar' })
    const [chosen] = resolve({ entity: 'relTrip', by: 'ownerId', columns: ['startTime', 'note'], pageSize: 5, label: label('Rides'), chart: { time: 'startTime', by: 'day', weeks: 2 } })
    expect(chosen!.columns.map((f) => f.name)).toEqual(['startTime', 'note'])
    expect(chosen).toMatchObject({ pageSize: 5, label: label('Rides'), chart: { by: 'day', weeks: 2, type: 'bar' } })
    // Issue 36: a compact list offers the row actions it names (none by default).
    expect(rides!.actions).toEqual([])
    expect(resolve({ entity: 'relTrip', by: 'ownerId', actions: ['flag'] })[0]!.actions).toEqual(['flag'])
  })

  it('fail clearly on what needs the related entity', () => {
    const fails = (r: RelatedList) => expect(() => resolve(r))
    fails({ entity: 'relNothing', by: 'ownerId' }).toThrow('relOwner: related relNothing.ownerId: no entity relNothing is registered')
    fails({ entity: 'relNoList', by: 'ownerId' }).toThrow('relNoList has no list operation')
    fails({ entity: 'relTrip', by: 'riderId' }).toThrow('riderId is not a field of relTrip')
    fails({ entity: 'relTrip', by: 'bikeId' }).toThrow("relTrip.bikeId must be a reference field to relOwner (kind: 'reference', entity: 'relOwner')")
    fails({ entity: 'relTrip', by: 'startTime' }).toThrow('must be a reference field to relOwner')
    fails({ entity: 'relTrip', by: 'otherOwnerId' }).toThrow("relTrip.otherOwnerId must be searchable with search: 'eq', so that relTrip's list accepts { otherOwnerId: id } (it has no search)")
    fails({ entity: 'relTrip', by: 'ownerId', columns: ['startTime', 'colour'] }).toThrow('column colour is not a field of relTrip')
    fails({ entity: 'relTrip', by: 'ownerId', columns: ['secret'] }).toThrow('column secret is a password')
    fails({ entity: 'relTrip', by: 'ownerId', chart: { time: 'distance', by: 'week' } }).toThrow('chart.time distance must be a date or datetime field of relTrip')
    fails({ entity: 'relTrip', by: 'ownerId', chart: { time: 'startTime', value: 'speed', by: 'week' } }).toThrow('chart.value speed must be a number or money field of relTrip marked summable: true')
    fails({ entity: 'relTrip', by: 'ownerId', actions: ['exportAll'] }).toThrow('actions: exportAll is not a row action or step of relTrip')
    fails({ entity: 'relTrip', by: 'ownerId', actions: ['fly'] }).toThrow('actions: fly is not a row action or step of relTrip')
  })

  it('fail at definition on what the definition says alone', () => {
    const defining = (r: RelatedList) => expect(() => defineEntity(ownerDef([r])))
    defining({ entity: '', by: 'ownerId' }).toThrow("relOwner: related[0] needs the related entity's key")
    defining({ entity: 'relTrip', by: 'ownerId', pageSize: 0 }).toThrow('pageSize must be a whole number from 1 to 500')
    defining({ entity: 'relTrip', by: 'ownerId', columns: [] }).toThrow('columns is empty')
    defining({ entity: 'relTrip', by: 'ownerId', chart: { time: 'startTime', by: 'year' as 'week' } }).toThrow('chart.by must be one of day, week, month')
    defining({ entity: 'relTrip', by: 'ownerId', chart: { time: 'startTime', by: 'week', weeks: 0 } }).toThrow('chart.weeks must be a whole number')
    defining({ entity: 'relTrip', by: 'ownerId', chart: { time: 'startTime', by: 'week', last: 3 } as never }).toThrow('unknown chart property last')
    defining({ entity: 'relTrip', by: 'ownerId', colums: ['x'] } as never).toThrow('related relTrip.ownerId: unknown property colums')
    defining({ entity: 'relTrip', by: 'ownerId', actions: [] }).toThrow('actions must name one or more row actions or steps of relTrip')
    defining({ entity: 'relTrip', by: 'ownerId', actions: ['flag', 'flag'] }).toThrow('actions names one twice')
    defining({ entity: 'relTrip', by: 'ownerId', manage: true, actions: ['flag'] }).toThrow('a managed list offers every row action already')
    expect(() => defineEntity(ownerDef([{ entity: 'relTrip', by: 'ownerId' }, { entity: 'relTrip', by: 'ownerId' }]))).toThrow('listed twice')
    const text = { name: 'name', kind: 'text', label: label('Name'), summable: true }
    expect(() => defineEntity({ ...ownerDef([]), fields: [ownerDef([]).fields[0], text] } as never)).toThrow('name is summable, but only number and money fields add up')
  })

  it('of every registered entity resolve', () => {
    for (const e of allEntities()) expect(() => relatedListsOf(e, entityByKey), e.key).not.toThrow()
  })
})

describe('summary periods (UTC, weeks from Monday)', () => {
  it('start on the period’s first day', () => {
    expect(periodStart('week', '2026-03-01')).toBe('2026-02-23') // a Sunday
    expect(periodStart('week', '2026-03-02')).toBe('2026-03-02') // a Monday
    expect(periodStart('month', '2026-03-17T23:00:00Z')).toBe('2026-03-01')
    expect(periodStart('day', new Date('2026-03-17T23:59:59Z'))).toBe('2026-03-17')
  })

  it('list and count the periods of a range', () => {
    expect(periodsBetween('week', '2026-02-25', '2026-03-10')).toEqual(['2026-02-23', '2026-03-02', '2026-03-09'])
    expect(periodsBetween('month', '2025-12-31', '2026-02-01')).toEqual(['2025-12-01', '2026-01-01', '2026-02-01'])
    expect(periodCount('week', '2026-02-25', '2026-03-10')).toBe(3)
    expect(periodCount('month', '2025-12-31', '2026-02-01')).toBe(3)
    expect(periodCount('day', '2026-01-01', '2026-12-31')).toBe(365)
  })

  it('reach back the chart’s weeks, ending today', () => {
    const wednesday = new Date('2026-03-11T10:00:00Z')
    const weeks = chartRange({ by: 'week', weeks: 12 }, wednesday)
    expect(weeks).toEqual({ from: '2025-12-22', to: '2026-03-11' })
    expect(periodsBetween('week', weeks.from, weeks.to)).toHaveLength(12)
    expect(periodsBetween('day', ...Object.values(chartRange({ by: 'day', weeks: 2 }, wednesday)) as [string, string])).toHaveLength(14)
    expect(chartRange({ by: 'month', weeks: 12 }, wednesday)).toEqual({ from: '2025-12-01', to: '2026-03-11' })
  })
})
