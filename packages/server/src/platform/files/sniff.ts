
/**
 * Bytes read before the content's type is decided. file-type needs 4,100 for most formats; Office
 * files and other zips are told apart by their first entries, which 64 KiB holds comfortably.
 */
export const SNIFF_BYTES = 64 * 1024

const ZIP_FAMILY = ['zip', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub', 'jar', 'apk', 'xpi'] as const
const ISO_MEDIA = ['mp4', 'm4v', 'mov'] as const

/**
 * Extensions whose content is checked, with what file-type may say for each. Listed rather than
 * taken from file-type's own list: that one holds names like `dat` that firmware and data files use
 * for anything, and those must pass unchecked (as `bin` and `hex` do). MP4 and QuickTime share one
 * container and phones write either brand under either name, so each takes the other.
 */
const SNIFFED: Readonly<Record<string, readonly string[]>> = {
  jpg: ['jpg'],
  jpeg: ['jpg'],
  png: ['png'],
  gif: ['gif'],
  webp: ['webp'],
  bmp: ['bmp'],
  tif: ['tif'],
  tiff: ['tif'],
  heic: ['heic'],
  avif: ['avif'],
  // Illustrator files are PDFs that file-type names after their creator.
  pdf: ['pdf', 'ai'],
  mp4: ISO_MEDIA,
  m4v: ISO_MEDIA,
  mov: ISO_MEDIA,
  webm: ['webm', 'mkv'],
  mkv: ['mkv', 'webm'],
  avi: ['avi'],
  mp3: ['mp3'],
  wav: ['wav'],
  flac: ['flac'],
  ogg: ['ogg', 'oga', 'opus'],
  zip: ZIP_FAMILY,
  docx: ['docx'],
  xlsx: ['xlsx'],
  pptx: ['pptx'],
  gz: ['gz'],
  '7z': ['7z'],
  rar: ['rar'],
}

/** Types of the extensions that are not sniffed, so a download still says what it is. */
const PLAIN_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  xml: 'application/xml',
}

export const isSniffed = (extension: string) => Object.hasOwn(SNIFFED, extension)

export interface SniffResult {
  ok: boolean
  /** The MIME type to store and serve: the sniffed one, else from the extension, else octet-stream. */
  contentType: string
}

/**
 * Whether the first bytes of a file are what its extension says. Extensions that cannot be sniffed
 * pass whatever they hold (firmware images are arbitrary bytes).
 */
export async function sniff(extension: string, head: Uint8Array): Promise<SniffResult> {
  const expected = SNIFFED[extension]
  if (!expected) return { ok: true, contentType: PLAIN_TYPES[extension] ?? 'application/octet-stream' }
  // Imported here, not at start: file-type's tables are only needed when a file arrives (issue 43).
  const { fileTypeFromBuffer } = await import('file-type')
  const found = await fileTypeFromBuffer(head).catch(() => undefined)
  return found && expected.includes(found.ext) ? { ok: true, contentType: found.mime } : { ok: false, contentType: 'application/octet-stream' }
}
