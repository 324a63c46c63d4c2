import { feedback } from '../lib/feedback'
import i18n from '../i18n'
import { MESSAGE_DURATION_S } from '../lib/config'
import { removeToken } from '../session/token'

// Feedback from non-React code (the http client), through the same context-aware messages and
// dialogs the components use (lib/feedback.tsx), so they follow the theme and locale.
const { message, modal } = feedback

export function showError(text: string): void {
  void message.error(text, MESSAGE_DURATION_S)
}

let sessionDialogOpen = false

/** SPEC §8: after 50008/50012/50014 offer to sign in again or stay; never stack two dialogs. */
export function confirmSessionEnd(): void {
  if (sessionDialogOpen) return
  sessionDialogOpen = true
  modal.confirm({
    title: i18n.t('session.confirmLogout'),
    content: i18n.t('session.loggedOut'),
    okText: i18n.t('session.relogin'),
    cancelText: i18n.t('common.cancel'),
    onOk: () => {
      removeToken()
      window.location.reload()
    },
    afterClose: () => {
      sessionDialogOpen = false
    },
  })
}

export const isSessionDialogOpen = (): boolean => sessionDialogOpen
