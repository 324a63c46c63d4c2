import { lazyRequire } from '../lib/lazy-require'

const loadSanitizeHtml = lazyRequire<typeof import('sanitize-html')>('sanitize-html')

// A stored image's name as Storage.save gives it to POST /common/upload: upload/yyyy/mm/dd/<uuid>.png|jpg
// ('/' written as is or percent-encoded, as encodeURIComponent leaves it in the upload's url).
const SLASH = '(?:/|%2F)'
const STORED_IMAGE = `upload${SLASH}\\d{4}${SLASH}\\d{2}${SLASH}\\d{2}${SLASH}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(?:png|jpg)`
// Any API_PREFIX: a path on this server, never another host (no scheme, no //).
const PREFIX = '(?:/[A-Za-z0-9_-]+)*'

/**
 * The only `<img src>` rich text keeps: images the console stored itself, by the URLs it hands out
 * for them, relative to this server. The url POST /common/upload answers
 * (`{API_PREFIX}/common/download?fileName=upload/…`) and an image of a row the riders' app shows
 * (`{API_PREFIX}/app/v1/files/{app.path}/{field}/upload/…`). Any other source (another host, a data:
 * URI, a protocol-relative //host) would make every reader's browser or phone fetch it from
 * whoever wrote it in: a tracking pixel.
 */
const CONSOLE_IMAGE = new RegExp(`^${PREFIX}/(?:common/download\\?fileName=${STORED_IMAGE}|app/v1/files/[A-Za-z0-9_-]+/[A-Za-z0-9_]+/${STORED_IMAGE})$`, 'i')

/** Whether an `<img src>` names an image the console stored (see CONSOLE_IMAGE). */
export const isConsoleImage = (src: string | undefined): boolean => !!src && CONSOLE_IMAGE.test(src)

/**
 * Rich text keeps formatting and links, never scripts, handlers or frames, and only images the
 * console stored: any other `<img>` is removed whole.
 */
export function sanitizeRichText(html: string): string {
  const sanitizeHtml = loadSanitizeHtml()
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'span', 'u', 's'],
    allowedAttributes: { a: ['href', 'target', 'rel'], img: ['src', 'alt', 'width', 'height'], '*': ['style'] },
    allowedStyles: { '*': { color: [/^#[0-9a-f]{3,6}$/i, /^rgb\(/], 'text-align': [/^(left|right|center|justify)$/] } },
    allowedSchemes: ['http', 'https', 'mailto'],
    // Seen after the attributes are filtered: an src of a scheme not allowed (data:, javascript:) is gone by then.
    exclusiveFilter: (frame) => frame.tag === 'img' && !isConsoleImage(frame.attribs.src),
  })
}

// Reads sanitize again what they send (rows stored before a rule changed, or written past the API),
// and the same texts are read over and over: each answer is kept, up to a budget of characters.
const READ_CACHE_BUDGET = 4_000_000
const readCache = new Map<string, string>()
let readCacheSize = 0

/**
 * Rich text as the riders' app API sends it: sanitized by the rules of today whenever it was stored.
 * Memoized (a text's answer never changes), oldest first out.
 */
export function sanitizeRichTextForRead(html: string): string {
  const kept = readCache.get(html)
  if (kept !== undefined) return kept
  const clean = sanitizeRichText(html)
  const size = html.length + clean.length
  if (size > READ_CACHE_BUDGET / 8) return clean
  readCache.set(html, clean)
  readCacheSize += size
  for (const [key, value] of readCache) {
    if (readCacheSize <= READ_CACHE_BUDGET) break
    readCache.delete(key)
    readCacheSize -= key.length + value.length
  }
  return clean
}
