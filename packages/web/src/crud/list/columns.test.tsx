import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import i18n from '../../i18n'
import { gadget } from '../../test/gadget'
import { jsonResponse, renderWithProviders } from '../../test/render'
import type { Row } from '../api/crudApi'
import { listColumns } from './columns'

const dictItems = [
  { dictValue: '0', dictLabel: 'Normal', dictLabelZh: '正常', listClass: 'primary', isDefault: 'Y' },
  { dictValue: '1', dictLabel: 'Disabled', dictLabelZh: '', listClass: 'danger', isDefault: 'N' },
]

const cell = (name: string, row: Row) => listColumns(gadget, null).find((c) => c.key === name)!.render!(row[name], row, 0) as never

function renderCell(name: string, row: Row) {
  return renderWithProviders(<div>{cell(name, row)}</div>)
}

describe('list columns from definitions', () => {
  const fetchMock = vi.fn<typeof fetch>()
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async () => jsonResponse(dictItems))
  })
  afterEach(async () => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    await i18n.changeLanguage('en_US')
  })

  it('lists the listed fields, titled in the page language, sortable where the definition says', () => {
    const columns = listColumns(gadget, { field: 'seen', order: 'desc' })
    expect(columns.map((c) => c.key)).toEqual([
      'gadgetId', 'name', 'code', 'firmware', 'price', 'count', 'status', 'size', 'active', 'born', 'seen', 'photo', 'email', 'phone', 'zone', 'deptId', 'createTime',
    ])
    expect(columns.find((c) => c.key === 'price')!.title).toBe('Price')
    expect(columns.filter((c) => c.sorter).map((c) => c.key)).toEqual(['gadgetId', 'name', 'seen'])
    expect(columns.find((c) => c.key === 'seen')!.sortOrder).toBe('descend')
    expect(columns.find((c) => c.key === 'name')!.sortOrder).toBeNull()
  })

  it('shows dictionary values as tags in the list colour, fetched once per type, in the page language', async () => {
    await i18n.changeLanguage('zh_CN')
    expect(listColumns(gadget, null).find((c) => c.key === 'status')!.title).toBe('状态')
    renderWithProviders(
      <div>
        {cell('status', { status: '0' })}
        {cell('status', { status: '1' })}
      </div>,
    )
    const tag = await screen.findByText('正常')
    expect(tag.closest('.ant-tag')?.className).toContain('ant-tag-processing')
    // No Chinese label: the English one stands in.
    expect(screen.getByText('Disabled').closest('.ant-tag')?.className).toContain('ant-tag-error')
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/system/dict/getDicts/sys_normal_disable'])
  })

  it('shows enums and booleans as tags, references by their label, money with two decimals, instants in local time', () => {
    renderCell('size', { size: 'S' })
    expect(screen.getByText('Small').closest('.ant-tag')?.className).toContain('ant-tag-blue')
    renderCell('active', { active: true })
    expect(screen.getByText('Yes').closest('.ant-tag')).toBeTruthy()
    renderCell('deptId', { deptId: 4, deptIdLabel: 'Firmware team' })
    expect(screen.getByText('Firmware team')).toBeTruthy()
    renderCell('price', { price: 12.5 })
    expect(screen.getByText('12.50')).toBeTruthy()
    const instant = '2024-03-05T10:20:30.000Z'
    const local = new Date(instant)
    const pad = (n: number) => String(n).padStart(2, '0')
    renderCell('seen', { seen: instant })
    expect(
      screen.getByText(`${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())} ${pad(local.getHours())}:${pad(local.getMinutes())}:${pad(local.getSeconds())}`),
    ).toBeTruthy()
  })
})
