import { describe, expect, it } from 'vitest'
import { hasPermission, hasRole, isAllowed } from './access'

describe('permission checks', () => {
  it('allows admin and listed roles', () => {
    expect(hasRole(['admin'], ['editor'])).toBe(true)
    expect(hasRole(['editor'], ['editor', 'ops'])).toBe(true)
    expect(hasRole(['viewer'], ['editor'])).toBe(false)
  })

  it('allows the wildcard and listed permissions', () => {
    expect(hasPermission(['*:*:*'], ['system:dict:add'])).toBe(true)
    expect(hasPermission(['system:dict:add'], ['system:dict:add', 'system:dict:edit'])).toBe(true)
    expect(hasPermission(['system:dict:list'], ['system:dict:add'])).toBe(false)
  })

  it('throws when called without values', () => {
    expect(() => hasRole(['admin'], [])).toThrow()
    expect(() => hasPermission(['*:*:*'], [])).toThrow()
    expect(() => isAllowed({}, { roles: ['admin'], permissions: [] })).toThrow()
  })

  it('requires every given check', () => {
    const owned = { roles: ['editor'], permissions: ['a:b:c'] }
    expect(isAllowed({ roles: ['editor'], permissions: ['a:b:c'] }, owned)).toBe(true)
    expect(isAllowed({ roles: ['editor'], permissions: ['x:y:z'] }, owned)).toBe(false)
  })
})
