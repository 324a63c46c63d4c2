import { StrictMode, type ReactNode } from 'react'
import { flushSync } from 'react-dom'
import { createRoot } from 'react-dom/client'
import { loadConsole } from './app/loadConsole'
import { getToken } from './session/token'
import { AuthApp, type LeaveToConsole } from './app/AuthApp'
import { isPublicPath } from './layout/auth/AuthNav'
import './styles/global.css'

// Two apps share this entry. The public pages (sign in, register, reset password) are in this chunk
// and render at once, with no antd, router or i18next; everything else, the console, is a chunk of
// its own (app/console.ts) loaded with import(): at once for any other address, and from the
// sign-in page as soon as the user starts filling the form (e2e/bundle.spec.ts holds the budget).

const root = createRoot(document.getElementById('root') as HTMLElement)
const render = (node: ReactNode) => root.render(<StrictMode>{node}</StrictMode>)

const openConsole: LeaveToConsole = (to, options) => {
  loadConsole().then(
    ({ App }) => {
      if (to) window.history[options?.replace ? 'replaceState' : 'pushState'](null, '', to)
      render(<App />)
    },
    (error: unknown) => {
      console.error(error)
      // A new version replaced the chunks under an open page: a full load gets the current ones.
      if (to) window.location.assign(to)
    },
  )
}

const path = window.location.pathname
// A signed-in user opening /login goes on to the console, which sends them where they were going.
// The public page renders synchronously, in this very task: the form is painted with the first frame.
if (isPublicPath(path) && !(path === '/login' && getToken())) flushSync(() => render(<AuthApp onLeave={openConsole} />))
else openConsole()
