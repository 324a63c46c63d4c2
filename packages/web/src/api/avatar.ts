import { API_BASE_URL, DEFAULT_AVATAR } from '../lib/config'

// Apart from the personal centre's calls (./profile.ts): the navbar shows the avatar on every page,
// and importing it from there put all of those calls in the console's first-screen chunk.

/** The avatar image URL: the default for none, else the common endpoint, cache-busted after a change. */
export function avatarUrl(avatar: string | null | undefined, version = 0): string {
  if (!avatar) return DEFAULT_AVATAR
  const url = `${API_BASE_URL}/common/avatar?url=${encodeURIComponent(avatar)}`
  return version ? `${url}&t=${version}` : url
}
