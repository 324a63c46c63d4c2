/**
 * Versions 'major.minor.patch' (each part 0–999, SPEC §5) compared as numbers, never as text:
 * '1.10.0' is newer than '1.9.0'. Used by the app's version check, agreement versions and firmware.
 */
export function versionParts(version: string): [number, number, number] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(version.trim())
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null
}

/** Negative when a is older than b, 0 when equal, positive when newer; a malformed version is older than any. */
export function compareVersions(a: string, b: string): number {
  const pa = versionParts(a)
  const pb = versionParts(b)
  if (!pa || !pb) return (pa ? 1 : 0) - (pb ? 1 : 0)
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2]
}

/** A version as one sortable number (1.10.0 → 1_010_000), for ORDER BY and comparisons in SQL. */
export function versionNumber(version: string): number {
  const p = versionParts(version)
  return p ? p[0] * 1_000_000 + p[1] * 1_000 + p[2] : -1
}
