// How the bench parts print: progress to stderr, figures as the table shows them.

const benchStart = performance.now()
/** A progress line, with the seconds since the run began (to see where a run's time goes). */
export const log = (msg: string) => process.stderr.write(`[bench ${((performance.now() - benchStart) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`)
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
export const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`

/** The middle of the values (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length / 2
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
