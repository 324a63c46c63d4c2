/** A size as people read it, in binary units: 1536 → "1.5 KB", 209715200 → "200 MB". */
export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let value = n
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`
}
