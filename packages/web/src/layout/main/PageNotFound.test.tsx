import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import '../../i18n'
import { PageNotFound } from './PageNotFound'

describe('a menu page without a page module', () => {
  it('says a page of the product menu is not in this version yet, not that it is broken', () => {
    render(<PageNotFound component="dashboard/engagement/index" />)
    expect(screen.getByTestId('page-not-built')).toBeTruthy()
    expect(screen.getByText('Not in this version yet')).toBeTruthy()
    expect(screen.queryByText('Page not found')).toBeNull()
  })

  it('names the missing module of a menu an admin added', () => {
    render(<PageNotFound component="custom/report/index" />)
    expect(screen.getByTestId('page-not-found')).toBeTruthy()
    expect(screen.getByText(/custom\/report\/index/)).toBeTruthy()
  })
})
