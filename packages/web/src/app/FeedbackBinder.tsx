import { useEffect } from 'react'
import { App } from 'antd'
import { bindFeedback } from '../api/feedback'

/** Hands antd's context-aware message and modal (theme, locale) to the http client. */
export function FeedbackBinder() {
  const { message, modal } = App.useApp()
  useEffect(() => bindFeedback(message, modal), [message, modal])
  return null
}
