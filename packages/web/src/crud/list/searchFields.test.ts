import { describe, expect, it } from 'vitest'
import dayjs from 'dayjs'
import { systemEntities } from '@velo/shared'
import { gadget } from '../../test/gadget'
import { filtersFrom, searchFieldsOf } from './searchFields'
import { searchInputFor } from './searchInputs'
import { kindOf } from '../kinds/kindTable'
import { TextInput } from '../kinds/inputs'

describe('search fields from definitions', () => {
  it('offers the searchable fields with their modes, minus hidden and forced ones', () => {
    expect(searchFieldsOf(gadget).map(({ field, mode }) => `${field.name}:${mode}`)).toEqual([
      'name:like',
      'code:eq',
      'price:range',
      'status:eq',
      'size:in',
      'born:range',
      'seen:range',
      'deptId:subtree',
    ])
    const names = searchFieldsOf(systemEntities.user, { hide: ['email'], forced: { deptId: 4 } }).map((s) => s.field.name)
    expect(names).toEqual(['userName', 'nickName', 'phonenumber', 'status', 'createTime'])
  })

  it('picks the input by mode, and by kind for exact matches', () => {
    const [name, code, , status, , , , dept] = searchFieldsOf(gadget)
    expect(searchInputFor(name!.field, name!.mode)).toBe(TextInput)
    expect(searchInputFor(code!.field, code!.mode)).toBe(kindOf(code!.field).Search)
    expect(searchInputFor(status!.field, status!.mode)).toBe(kindOf(status!.field).Search)
    expect(searchInputFor(dept!.field, dept!.mode)).toBe(kindOf(dept!.field).Search)
  })
})

describe('filters from the search form', () => {
  const fields = searchFieldsOf(gadget)

  it('drops empty inputs and trims text', () => {
    expect(filtersFrom(fields, { name: '  ', code: undefined, size: [], price: [null, null] })).toEqual({})
    expect(filtersFrom(fields, { name: ' bike ', status: '0', deptId: 7 })).toEqual({ name: 'bike', status: '0', deptId: 7 })
  })

  it('sends in-searches as arrays and number ranges with open ends', () => {
    expect(filtersFrom(fields, { size: ['S', 'L'], price: [5, null] })).toEqual({ size: ['S', 'L'], price: [5, null] })
  })

  it('sends date ranges as days and instant ranges as the whole local days', () => {
    const filters = filtersFrom(fields, {
      born: [dayjs('2024-01-02'), dayjs('2024-01-05')],
      seen: [dayjs('2024-01-02T15:00:00'), null],
    })
    expect(filters.born).toEqual(['2024-01-02', '2024-01-05'])
    expect(filters.seen).toEqual([dayjs('2024-01-02T00:00:00').toISOString(), null])
    const [, end] = filtersFrom(fields, { seen: [null, dayjs('2024-01-05T09:00:00')] }).seen as [null, string]
    expect(end).toBe(dayjs('2024-01-05T23:59:59.999').toISOString())
  })
})
