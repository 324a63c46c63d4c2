// MQTT topic names and filters as the server's debugger accepts them (MQTT 3.1.1 §4.7, at most 255
// characters, no shared subscriptions, no broker-reserved $ topics to publish to).

export const MAX_TOPIC_LENGTH = 255

/** A subscription filter: '+' takes a whole level, '#' a whole last level; not $share/… or $queue/…. */
export function isValidFilter(filter: string): boolean {
  if (!filter || filter.length > MAX_TOPIC_LENGTH || filter.includes('\0')) return false
  if (/^\$(share|queue)\//i.test(filter)) return false
  const levels = filter.split('/')
  return levels.every((level, i) => {
    if (level.includes('#')) return level === '#' && i === levels.length - 1
    return !level.includes('+') || level === '+'
  })
}

/** A topic to publish to: no wildcards, not a broker-reserved $ topic. */
export function isValidTopic(topic: string): boolean {
  return !!topic && topic.length <= MAX_TOPIC_LENGTH && !/[+#\0]/.test(topic) && !topic.startsWith('$')
}
