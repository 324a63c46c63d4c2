import { describe, expect, it } from 'vitest'
import { prettifyKey, translateTitle } from '.'
import { menuEnUS, menuZhCN } from './menus'

describe('menu titles', () => {
  it('translates known keys, prettifies unknown keys, keeps plain text', () => {
    expect(translateTitle('menu.system.dict')).toBe('Dictionaries')
    expect(translateTitle('menu.monitor.logininfor')).toBe('Login log')
    expect(translateTitle('menu.iot.fancyThing')).toBe('Fancy Thing')
    expect(translateTitle('Plain title')).toBe('Plain title')
    expect(translateTitle('')).toBe('')
    expect(prettifyKey('menu.ota.bms_part')).toBe('Bms part')
  })

  it('has Chinese for every English menu key', () => {
    expect(Object.keys(menuZhCN).sort()).toEqual(Object.keys(menuEnUS).sort())
  })
})
