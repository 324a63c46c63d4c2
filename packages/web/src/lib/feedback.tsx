import { lazy, Suspense, useSyncExternalStore } from 'react'
import type { MessageInstance, MessageType } from 'antd/es/message/interface'
import type { HookAPI as ModalInstance } from 'antd/es/modal/useModal'
import type { NotificationInstance } from 'antd/es/notification/interface'

/** antd's context-aware message, confirmation dialogs and notifications (they follow the theme and locale). */
export interface Feedback {
  message: MessageInstance
  modal: ModalInstance
  notification: NotificationInstance
}

// antd's App provides these to every page, but brings their code (Modal with Skeleton, message,
// notification: ~20 KB gzipped) to a list's first paint, which shows none of them. Here the host
// loads them the first time something is said, or asked: a call made before they are in waits for
// them (the load of one small chunk) and then runs; after that every call goes straight to antd.

let live: Feedback | null = null
let waiting: ((feedback: Feedback) => void)[] = []
let wanted = false
const listeners = new Set<() => void>()

function whenLive(run: (feedback: Feedback) => void): void {
  if (live) return run(live)
  waiting.push(run)
  if (!wanted) {
    wanted = true
    for (const listener of listeners) listener()
  }
}

/** What antd answers, once the call has run. */
function later<R>(call: (feedback: Feedback) => R): Promise<R> {
  return new Promise((resolve) => whenLive((feedback) => resolve(call(feedback))))
}

/** A message's handle before the message is shown: calling it closes the message once it is. */
function messageHandle(shown: Promise<MessageType>): MessageType {
  const closed = shown.then((handle) => handle)
  const close = () => void shown.then((handle) => handle())
  return Object.assign(close, { then: closed.then.bind(closed) as MessageType['then'] })
}

type MessageCall = 'info' | 'success' | 'error' | 'warning' | 'loading'
const messageCall =
  (kind: MessageCall): MessageInstance[MessageCall] =>
  (...args) =>
    live ? live.message[kind](...args) : messageHandle(later((f) => f.message[kind](...args)))

const message: MessageInstance = {
  info: messageCall('info'),
  success: messageCall('success'),
  error: messageCall('error'),
  warning: messageCall('warning'),
  loading: messageCall('loading'),
  open: (args) => (live ? live.message.open(args) : messageHandle(later((f) => f.message.open(args)))),
  destroy: (key) => whenLive((f) => f.message.destroy(key)),
}

type DialogCall = keyof ModalInstance
const dialogCall =
  (kind: DialogCall): ModalInstance[DialogCall] =>
  (props) => {
    if (live) return live.modal[kind](props)
    const shown = later((f) => f.modal[kind](props))
    return {
      destroy: () => void shown.then((dialog) => dialog.destroy()),
      update: (update) => void shown.then((dialog) => dialog.update(update)),
      then: (resolve, reject) => shown.then((dialog) => dialog.then(resolve, reject)),
    }
  }

const modal: ModalInstance = { confirm: dialogCall('confirm'), info: dialogCall('info'), success: dialogCall('success'), error: dialogCall('error'), warning: dialogCall('warning') }

type NoticeCall = 'success' | 'error' | 'info' | 'warning' | 'open'
const noticeCall =
  (kind: NoticeCall): NotificationInstance[NoticeCall] =>
  (args) =>
    whenLive((f) => f.notification[kind](args))

const notification: NotificationInstance = {
  success: noticeCall('success'),
  error: noticeCall('error'),
  info: noticeCall('info'),
  warning: noticeCall('warning'),
  open: noticeCall('open'),
  destroy: (key) => whenLive((f) => f.notification.destroy(key)),
}

const feedback: Feedback = { message, modal, notification }

/** The app's messages, dialogs and notifications, for components and for code outside React alike. */
export const useFeedback = (): Feedback => feedback
export { feedback }

/** Called by the holders once mounted (and with null when they go). */
function connect(instances: Feedback | null): void {
  live = instances
  if (!instances) return
  const queued = waiting
  waiting = []
  for (const run of queued) run(instances)
}

const subscribe = (listener: () => void) => {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

const FeedbackHolders = lazy(() => import('./FeedbackHolders'))

/** Renders antd's holders inside the theme, from the first time anything is said. */
export function FeedbackHost() {
  const needed = useSyncExternalStore(subscribe, () => wanted)
  return needed ? (
    <Suspense fallback={null}>
      <FeedbackHolders connect={connect} />
    </Suspense>
  ) : null
}
