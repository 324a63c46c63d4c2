import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen, within } from '@testing-library/react'
import '../../i18n'
import { RowActions, splitRowActions, type RowAction } from './RowActions'

const action = (key: string, onClick = vi.fn()): RowAction => ({ key, label: key, onClick, testId: `row-${key}` })
const buttonsOf = (container: HTMLElement) => [...container.querySelectorAll('button')].map((b) => b.textContent)

describe('RowActions', () => {
  it('shows up to two actions as buttons, leaving out the ones a page switched off', () => {
    const { container } = render(<RowActions actions={[action('edit'), false, null, action('delete'), undefined]} />)
    expect(buttonsOf(container)).toEqual(['edit', 'delete'])
    expect(screen.queryByTestId('row-more')).toBeNull()
  })

  it('with more than two, shows the first two and puts the rest in More', async () => {
    const resetPassword = vi.fn()
    const { container } = render(<RowActions actions={[action('edit'), action('delete'), action('reset', resetPassword), action('roles')]} />)
    expect(buttonsOf(container)).toEqual(['edit', 'delete', 'More'])
    expect(screen.queryByTestId('row-reset')).toBeNull()

    fireEvent.click(screen.getByTestId('row-more'))
    const menu = await screen.findByRole('menu')
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual(['reset', 'roles'])
    fireEvent.click(within(menu).getByTestId('row-reset'))
    expect(resetPassword).toHaveBeenCalledTimes(1)
  })

  it('splits by the same rule everywhere', () => {
    expect(splitRowActions([action('a'), action('b')]).more).toEqual([])
    const split = splitRowActions([action('a'), action('b'), action('c')])
    expect(split.inline.map((a) => a.key)).toEqual(['a', 'b'])
    expect(split.more.map((a) => a.key)).toEqual(['c'])
  })
})
