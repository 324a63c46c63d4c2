import { afterEach, describe, expect, it } from 'vitest'
import { act, renderHook } from '@testing-library/react'
import type { SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { columnsStorageKey, readHiddenColumns, useHiddenColumns, writeHiddenColumns } from './columnVisibility'

const signIn = (username: string) => sessionStore.setState({ user: { username } as SessionUser })

describe('column visibility', () => {
  afterEach(() => {
    localStorage.clear()
    sessionStore.setState({ user: null })
  })

  it('is stored per user name and entity', () => {
    expect(columnsStorageKey('alice', 'country')).toBe('velo.columns.alice.country')
    writeHiddenColumns(columnsStorageKey('alice', 'country'), ['remark'])
    expect(readHiddenColumns(columnsStorageKey('alice', 'country'))).toEqual(['remark'])
    expect(readHiddenColumns(columnsStorageKey('bob', 'country'))).toEqual([])
    expect(readHiddenColumns(columnsStorageKey('alice', 'role'))).toEqual([])
  })

  it('treats unreadable storage as nothing hidden and forgets an empty choice', () => {
    localStorage.setItem('velo.columns.alice.country', '{not json')
    expect(readHiddenColumns('velo.columns.alice.country')).toEqual([])
    writeHiddenColumns('velo.columns.alice.country', [])
    expect(localStorage.getItem('velo.columns.alice.country')).toBeNull()
  })

  it('remembers a choice across mounts and reads the next user’s own', () => {
    signIn('alice')
    const first = renderHook(() => useHiddenColumns('country'))
    act(() => first.result.current[1](['code', 'remark']))
    expect([...first.result.current[0]]).toEqual(['code', 'remark'])
    first.unmount()

    const again = renderHook(() => useHiddenColumns('country'))
    expect([...again.result.current[0]]).toEqual(['code', 'remark'])
    act(() => signIn('bob'))
    expect([...again.result.current[0]]).toEqual([])
  })
})
