import { describe, expect, it } from 'vitest'
import { render, screen, within } from '@testing-library/react'
import { systemEntities } from '@velo/shared'
import { ImportReport } from './ImportReport'

describe('import report', () => {
  it('lists every problem by spreadsheet row with the column label', () => {
    render(
      <ImportReport
        entity={systemEntities.country}
        outcome={{
          errors: [
            { row: 3, field: 'code', message: 'Code must be 1 to 2 letters' },
            { row: 5, field: 'timeZone', message: 'Time zone is required' },
            { row: 5, field: 'unknownColumn', message: 'Unknown column' },
          ],
        }}
      />,
    )
    const report = screen.getByTestId('import-report')
    expect(within(report).getByText('Nothing was imported. Problems found: 3. Correct the file and import it again.')).toBeTruthy()
    const rows = within(report).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((c) => c.textContent))
    expect(rows).toEqual([
      ['3', 'Code', 'Code must be 1 to 2 letters'],
      ['5', 'Time zone', 'Time zone is required'],
      ['5', 'unknownColumn', 'Unknown column'],
    ])
  })

  it('shows the counts of a successful import', () => {
    render(<ImportReport entity={systemEntities.country} outcome={{ result: { inserted: 4, updated: 2 } }} />)
    expect(screen.getByTestId('import-done').textContent).toContain('4 rows added, 2 rows updated')
  })
})
