/**
 * The demo's one source of chance: mulberry32 (the bench's too), so the same seed gives the same
 * data on every machine. Everything the generator decides is drawn from it, in a fixed order.
 */
export type Random = ReturnType<typeof random>

export function random(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const between = (min: number, max: number) => min + next() * (max - min)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  const chance = (p: number) => next() < p
  /** Standard normal (Box–Muller; one of the pair is dropped, which keeps the draw count fixed). */
  const gauss = () => {
    const u = 1 - next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
  }
  const normal = (mean: number, sd: number) => mean + sd * gauss()
  /** Log-normal by its median and the spread factor (about 68 % fall within median ÷ f … median × f). */
  const logNormal = (median: number, factor: number) => median * Math.exp(Math.log(factor) * gauss())
  /** Exponential by its mean. */
  const exponential = (mean: number) => -mean * Math.log(1 - next())
  const digits = (n: number) => {
    let s = ''
    for (let i = 0; i < n; i++) s += String(int(10))
    return s
  }
  return { next, int, between, pick, chance, gauss, normal, logNormal, exponential, digits }
}

/** A picker over weighted items: pass it a draw in [0, 1). */
export function weighted<T>(items: readonly (readonly [T, number])[]) {
  const total = items.reduce((s, [, w]) => s + w, 0)
  return (r: number): T => {
    let x = r * total
    for (const [v, w] of items) {
      x -= w
      if (x < 0) return v
    }
    return items.at(-1)![0]
  }
}

export const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v))
export const round = (v: number, decimals: number) => {
  const f = 10 ** decimals
  return Math.round(v * f) / f
}
