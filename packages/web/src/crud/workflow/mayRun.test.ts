import { describe, expect, it } from 'vitest'
import { entityByKey, SEE_ALL_PERSONAL_DATA } from '@velo/shared'
import { isAllowed } from '../../session/access'
import { actionOperation, mayRun } from './operations'

// An action offered only to who may run it (its permission and each right it also needs): the
// member's data package, which carries every personal value unmasked, needs every member:pii:* right.

const member = entityByKey('member')
const dataPackage = actionOperation(member, member.actions!.find((a) => a.name === 'dataPackage')!)
const holding = (...permissions: string[]) => (rule: { permissions: readonly string[] }) => isAllowed(rule, { roles: [], permissions })

describe('mayRun (whether the console offers an operation)', () => {
  it('needs the permission and every right the action also needs', () => {
    expect(dataPackage.alsoNeeds).toEqual(SEE_ALL_PERSONAL_DATA)
    expect(mayRun(dataPackage, holding('member:member:dataPackage', ...SEE_ALL_PERSONAL_DATA))).toBe(true)
    expect(mayRun(dataPackage, holding('member:member:dataPackage', 'member:pii:contact'))).toBe(false)
    expect(mayRun(dataPackage, holding(...SEE_ALL_PERSONAL_DATA))).toBe(false)
    expect(mayRun(dataPackage, holding('*:*:*'))).toBe(true)
  })

  it('is the permission alone for an action that needs nothing else', () => {
    const op = { ...dataPackage, alsoNeeds: undefined }
    expect(mayRun(op, holding('member:member:dataPackage'))).toBe(true)
    expect(mayRun(op, holding('member:member:list'))).toBe(false)
  })
})
