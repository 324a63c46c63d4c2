const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    } catch {
      // A zone this runtime does not know: the device is judged in UTC rather than never.
      f = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    }
    formatters.set(timeZone, f)
  }
  return f
}

/** Minutes since local midnight in the zone. */
export function localMinutes(at: Date, timeZone: string): number {
  const parts = formatterOf(timeZone).formatToParts(at)
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0)
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0)
  return hour * 60 + minute
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/**
 * Whether a device's local time is inside the campaign's daily window [start, end). Either bound
 * empty, or both equal: any time. A window whose end comes before its start crosses midnight
 * (22:00–04:00).
 */
export function inDailyWindow(at: Date, timeZone: string, start: string, end: string): boolean {
  if (!start || !end || start === end) return true
  const now = localMinutes(at, timeZone)
  const from = minutesOf(start)
  const to = minutesOf(end)
  return from < to ? now >= from && now < to : now >= from || now < to
}
