/**
 * The import bomb of penetration-test finding 8, at its worst: the largest shared-strings bomb that
 * fits under the import upload limit (IMPORT_MAX_MB, default 50), posted to the dictionary import
 * while the server's resident memory is watched. Before the streaming reader an 18 MB one took the
 * server 118 s of CPU and 3.5 GB; now it must be refused quickly with 413 and little memory.
 */
import { systemEntities } from '@velo/shared'
import { deflated, MAIN_NS, sheetEnd, sheetStart, workbookXlsx } from '../test/xlsx-craft'
import { MemoryWatch } from './server'

const MB = 1024 * 1024

export interface ImportBombResult {
  /** Size of the uploaded .xlsx. */
  fileMb: number
  /** What its shared-strings table would inflate to, read to the end. */
  unpackedGb: number
  status: number
  message: string
  seconds: number
  peakRssMb: number
  /** The server's resident memory when the upload began. */
  startRssMb: number
}

/**
 * A workbook whose shared strings are `<si><t>a…a</t></si>` (1,000 characters each, under Excel's
 * cell limit so only the size limits can stop it) repeated to fill `maxBytes` of upload.
 */
export function sharedStringsBomb(maxBytes: number): { file: Buffer; unpackedBytes: number } {
  const chunk = `<si><t>${'a'.repeat(1000)}</t></si>`.repeat(1024)
  const perChunk = deflated(chunk).length
  const times = Math.floor((maxBytes - 64 * 1024) / perChunk)
  const file = workbookXlsx({
    sheet: deflated(`${sheetStart}<row r="1"><c r="A1" t="s"><v>0</v></c></row>${sheetEnd}`),
    sharedStrings: deflated(`<sst xmlns="${MAIN_NS}">`, { text: chunk, times }, '</sst>'),
  })
  return { file, unpackedBytes: chunk.length * times }
}

/**
 * Posts the bomb to the dictionary import, `${baseUrl}/api/system/dict/import` (baseUrl: the server's
 * root, as ServerProcess.baseUrl), as the import page does, signed in with `token`, and samples the
 * server's memory (pid `serverPid`) while it answers.
 */
export async function measureImportBomb(baseUrl: string, token: string, serverPid: number): Promise<ImportBombResult> {
  const limit = Math.round(Number(process.env.IMPORT_MAX_MB || 50) * MB)
  const { file, unpackedBytes } = sharedStringsBomb(limit)
  const form = new FormData()
  form.append('updateSupport', 'false')
  form.append('file', new Blob([file]), 'bomb.xlsx')
  const watch = new MemoryWatch(serverPid)
  const started = performance.now()
  const res = await fetch(`${baseUrl}/api${systemEntities.dictType.path}/import`, { method: 'POST', headers: { authorization: token }, body: form })
  const text = await res.text()
  const seconds = (performance.now() - started) / 1000
  const peak = watch.stop()
  let message = text.slice(0, 200)
  try {
    message = (JSON.parse(text) as { msg?: string }).msg ?? message
  } catch {
    // not the envelope: keep the raw text
  }
  return { fileMb: file.length / MB, unpackedGb: unpackedBytes / 1024 / MB, status: res.status, message, seconds, peakRssMb: peak / MB, startRssMb: watch.startRss / MB }
}
