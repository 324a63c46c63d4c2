// MQTT topic names and filters as the message-queue debugger takes them (MQTT 3.1.1 §4.7): the
// server enforces these, the console checks them before sending.

/** Longest topic or filter the debugger takes (MQTT allows 65,535 bytes; nobody types that). */
export const MAX_TOPIC_LENGTH = 255

/**
 * A subscription filter: `+` fills a whole level, `#` is alone in the last level. Shared-subscription
 * filters are refused: `$share/…` would join a server group and take messages away from the gateway.
 */
export function isValidTopicFilter(filter: string): boolean {
  if (filter.length === 0 || filter.length > MAX_TOPIC_LENGTH || filter.includes('\u0000')) return false
  if (/^\$(share|queue)\//i.test(filter)) return false
  const levels = filter.split('/')
  return levels.every((level, i) => {
    if (level.includes('#')) return level === '#' && i === levels.length - 1
    return !level.includes('+') || level === '+'
  })
}

/** A topic to publish to: no wildcards, and not a broker-reserved `$` topic. */
export function isValidTopicName(topic: string): boolean {
  return topic.length > 0 && topic.length <= MAX_TOPIC_LENGTH && !/[+#\u0000]/.test(topic) && !topic.startsWith('$')
}
