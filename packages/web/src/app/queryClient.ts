import { QueryClient } from '@tanstack/react-query'

/** The console's one query cache: the app provides it, and a sign-in fills it for the page it opens before the app has rendered. */
export const queryClient = new QueryClient({
  defaultOptions: {
    // The http client already reports failures; retrying would repeat the red message.
    queries: { retry: false, refetchOnWindowFocus: false },
  },
})
