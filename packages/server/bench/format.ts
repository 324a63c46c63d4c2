// How the bench parts print: progress to stderr, figures as the table shows them.

export const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`)
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
export const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`
