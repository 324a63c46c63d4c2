/** The login URL that brings the user back to `fullPath` after signing in. */
export const loginUrlFor = (fullPath: string): string =>
  fullPath && fullPath !== '/' ? `/login?redirect=${encodeURIComponent(fullPath)}` : '/login?redirect=%2F'

/** Only same-site paths are followed after sign-in ('//evil.example' is not a path). */
export function safeRedirect(target: string | null): string {
  if (!target || !target.startsWith('/') || target.startsWith('//')) return '/'
  return target
}
