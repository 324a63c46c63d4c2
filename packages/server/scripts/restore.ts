import { resolve } from 'node:path'
import { BackupRefused, backupMessage, cliLanguage, restoreBackup, verifyBackup } from '../src/ops/backup'
import { commandLine, fail } from './cli'

// npm run restore -- <backup-dir> --data <new-data-dir>
// Verifies the backup's checksums, then restores it into a new or empty data folder (never over a
// database) and prints how to start a server on it. docs/ops/backup.md.

const USAGE = `usage: npm run restore -- <backup-dir> --data <new-data-dir>
       npm run restore -- <backup-dir> --verify-only
  --data DIR      the data folder to restore into: new or empty (velo.db and files/ are written there)
  --verify-only   check the backup's checksums and write nothing
  --help          this text
A PostgreSQL deployment is restored with pg_restore instead (docs/ops/backup.md).`

const lang = cliLanguage()

const { values: args, positionals } = commandLine(USAGE, {
  options: { data: { type: 'string' }, 'verify-only': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  allowPositionals: true,
})
if (positionals.length !== 1) fail(USAGE)
if (!args.data && !args['verify-only']) fail(`--data is required\n${USAGE}`)

// Paths mean where the command was typed: npm runs a workspace's script in the workspace's folder.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD)
const backupDir = resolve(positionals[0]!)

try {
  if (args['verify-only'] || !args.data) {
    const manifest = await verifyBackup(backupDir)
    console.log(verifiedLine(manifest))
  } else {
    const result = await restoreBackup(backupDir, resolve(args.data))
    console.log(verifiedLine(result.manifest))
    console.log(backupMessage(lang, 'restored', { dir: result.dataDir, database: result.databaseFile, storage: result.storageDir }))
  }
} catch (e) {
  if (e instanceof BackupRefused) fail(e.text(lang), 2)
  throw e
}

function verifiedLine(manifest: Awaited<ReturnType<typeof verifyBackup>>): string {
  return backupMessage(lang, 'verified', { dir: backupDir, count: manifest.files.length + 1, createdAt: manifest.createdAt, version: manifest.serverVersion })
}
