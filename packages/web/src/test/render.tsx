import type { ReactElement, ReactNode } from 'react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render } from '@testing-library/react'
import { FeedbackHost } from '../lib/feedback'

/** Renders with what every page has around it: a fresh query cache and the messages' and dialogs' host. */
export function renderWithProviders(ui: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>
      {children}
      <FeedbackHost />
    </QueryClientProvider>
  )
  return { client, ...render(ui, { wrapper }) }
}

export const jsonResponse = (data: unknown, status = 200, code = status) =>
  new Response(JSON.stringify({ code, msg: code === 200 ? 'ok' : 'failed', data }), { status, headers: { 'Content-Type': 'application/json' } })
