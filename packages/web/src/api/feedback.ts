import { message as staticMessage, Modal, type ModalFuncProps } from 'antd'
import type { MessageInstance } from 'antd/es/message/interface'
import i18n from '../i18n'
import { MESSAGE_DURATION_S } from '../lib/config'
import { removeToken } from '../session/token'

// Feedback from non-React code (the http client). The App binds antd's context-aware instances so
// messages and dialogs follow the theme and locale; before that the static versions are used.

let message: Pick<MessageInstance, 'error' | 'success' | 'warning'> = staticMessage
let modal: { confirm: (props: ModalFuncProps) => unknown } = Modal

export function bindFeedback(m: typeof message, d: typeof modal): void {
  message = m
  modal = d
}

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
