import { afterEach, describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { defineEntity } from '@velo/shared'
import i18n from '../../i18n'
import { EntityDescriptions } from '../EntityDetails'
import { listColumns } from '../list/columns'
import { RowCards } from '../list/RowCards'
import { NumberInput } from './heavyInputs'
import { fieldRules } from './kindTable'

// Issue 36: a duration field reads as a duration wherever the kit shows its value, and names its
// unit wherever the bare number is entered.
const trip = defineEntity({
  key: 'trip',
  table: 'testTrip',
  path: '/test/trip',
  permission: 'test:trip',
  label: { en_US: 'Trips', zh_CN: '行程' },
  idField: 'tripId',
  defaultSort: { field: 'tripId', order: 'asc' },
  fields: [
    { name: 'tripId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' } },
    { name: 'duration', kind: 'number', int: true, min: 0, max: 86_400, duration: 's', label: { en_US: 'Duration', zh_CN: '时长' } },
    { name: 'distance', kind: 'number', label: { en_US: 'Distance (km)', zh_CN: '里程(km)' } },
  ],
})
const row = { tripId: 1, name: 'Morning', duration: 4320, distance: 4320 }
const durationField = trip.fieldMap.get('duration')!

function cellText(name: string): HTMLElement {
  const column = listColumns(trip, null).find((c) => c.key === name)!
  const { container } = render(<div>{column.render!(row[name as keyof typeof row], row, 0) as React.ReactNode}</div>)
  return container.firstElementChild as HTMLElement
}

describe('a duration field', () => {
  afterEach(() => void i18n.changeLanguage('en_US'))

  it('reads as a duration in the list (and the cards, which render its cells), the stored number in the tooltip', () => {
    const cell = cellText('duration')
    expect(cell.textContent).toBe('1 h 12 min')
    expect(cell.querySelector('[title]')?.getAttribute('title')).toBe('4,320 s')
    // Any other number stays as it is.
    expect(cellText('distance').textContent).toBe('4320')
  })

  it('in the page language', async () => {
    await i18n.changeLanguage('zh_CN')
    expect(cellText('duration').textContent).toBe('1小时12分')
  })

  it('reads as a duration on the cards narrow screens show instead of the table', () => {
    render(<RowCards entity={trip} rows={[row]} columns={listColumns(trip, null)} loading={false} />)
    expect(screen.getByTestId('crud-card').textContent).toContain('Duration1 h 12 min')
  })

  it('reads as a duration in the details', () => {
    render(<EntityDescriptions entity={trip} row={row} />)
    expect(screen.getByTestId('entity-details').textContent).toContain('Duration1 h 12 min')
  })

  it('is entered as the stored number, the input naming its unit', async () => {
    const { container } = render(<NumberInput entity={trip} field={durationField} value={4320} />)
    expect(container.querySelector('.ant-input-number-suffix')?.textContent).toBe('s')
    await i18n.changeLanguage('zh_CN')
    const zh = render(<NumberInput entity={trip} field={durationField} value={4320} />)
    expect(zh.container.querySelector('.ant-input-number-suffix')?.textContent).toBe('秒')
  })

  it("says its limits with the unit, as the bare number's", async () => {
    const rule = fieldRules(durationField, i18n.t)[0] as { validator: (rule: unknown, value: unknown) => Promise<void> }
    await expect(rule.validator({}, 90_000)).rejects.toThrow('Duration (s) must be at most 86400')
  })
})
