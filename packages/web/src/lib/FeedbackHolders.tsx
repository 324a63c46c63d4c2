import { useEffect } from 'react'
import { message, Modal, notification } from 'antd'
import type { Feedback } from './feedback'

/** antd's hook instances of message, Modal and notification with their holders (./feedback.tsx loads this on first use). */
export default function FeedbackHolders({ connect }: { connect: (instances: Feedback | null) => void }) {
  const [messages, messageHolder] = message.useMessage()
  const [dialogs, dialogHolder] = Modal.useModal()
  const [notices, noticeHolder] = notification.useNotification()
  useEffect(() => {
    connect({ message: messages, modal: dialogs, notification: notices })
    return () => connect(null)
  }, [connect, messages, dialogs, notices])
  return (
    <>
      {messageHolder}
      {dialogHolder}
      {noticeHolder}
    </>
  )
}
