import { describe, expect, it } from 'vitest'
import { allEntities, entityByKey, ownerOf, scopeProblems } from '../src'

// Every registered entity says whose its rows are (or why they are no one's), and what it says holds
// together with the other definitions: the server refuses to start otherwise.
describe('data scope declarations', () => {
  it.each(allEntities().map((e) => [e.key, e] as const))('%s declares its owner or why it has none', (_key, e) => {
    expect(scopeProblems(e, (k) => allEntities().find((x) => x.key === k))).toEqual([])
  })

  it('an entity without a declaration, a via to an unowned entity and a circle are problems', () => {
    const member = entityByKey('member')
    const byKey = (k: string) => allEntities().find((x) => x.key === k)
    expect(scopeProblems({ ...member, scope: undefined }, byKey)[0]).toMatch(/member declares no scope/)
    const bike = entityByKey('bike')
    expect(scopeProblems({ ...bike, scope: { via: 'modelId' } }, byKey)[0]).toMatch(/goes to bikeModel, whose rows have no owner/)
    const circle = { ...member, scope: { heldBy: { entity: 'bike', field: 'memberId' } } }
    const withCircle = (k: string) => (k === 'member' ? circle : byKey(k))
    expect(scopeProblems(circle, withCircle).join()).toMatch(/circle/)
  })

  it('the business entities the issue names are scoped by their path to a country', () => {
    const path = (key: string) => ownerOf(entityByKey(key))
    expect(path('member')).toMatchObject({ country: 'countryId' })
    expect(path('bike')).toMatchObject({ via: 'memberId' })
    expect(path('feedback')).toMatchObject({ via: 'memberId' })
    expect(path('ride')).toMatchObject({ via: 'memberId' })
    expect(path('iotDevice')).toMatchObject({ heldBy: { entity: 'bike', field: 'iotDeviceId' } })
    expect(path('iotSim')).toMatchObject({ via: 'deviceId' })
    expect(path('repairOrder')).toMatchObject({ country: 'countryId', person: 'createBy' })
  })
})
