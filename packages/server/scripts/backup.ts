import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { BackupRefused, backupMessage, cliLanguage, createBackup, defaultBackupTarget } from '../src/ops/backup'
import { SIGNING_FOLDER } from '../src/modules/ota/signing/keys'
import { commandConfig, commandLine, fail } from './cli'

// npm run backup [-- --to <dir>]
// A consistent copy of the SQLite database (online backup API: safe while the server runs and
// writes) and of STORAGE_DIR, with manifest.json and manifest.sha256. docs/ops/backup.md.

const USAGE = `usage: npm run backup [-- --to <dir>]
  --to DIR   the backup's folder, new or empty (default: BACKUP_DIR/velo-<UTC time>,
             BACKUP_DIR being DATA_DIR/backups unless set)
  --help     this text
DATABASE_URL and STORAGE_DIR are read as the server reads them. PostgreSQL is backed up with
pg_dump instead (docs/ops/backup.md).`

const lang = cliLanguage()

const args = commandLine(USAGE, { options: { to: { type: 'string' }, help: { type: 'boolean', default: false } } }).values

// Read as the server reads it; a relative path in an option is where the command was typed.
const config = commandConfig()

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
const now = new Date()
const target = args.to ? resolve(args.to) : defaultBackupTarget(config.backupDir, now)

try {
  const { dir, manifest } = await createBackup({ database: config.database, storageDir: config.storageDir, target, serverVersion: version, now })
  console.log(
    backupMessage(lang, 'backupDone', {
      dir,
      size: manifest.database.size,
      files: manifest.files.length,
      filesSize: manifest.files.reduce((n, f) => n + f.size, 0),
      migrations: manifest.migrations.product.length + manifest.migrations.generated.length,
    }),
  )
  // The key is left out by construction (it lives beside STORAGE_DIR, never in it): the operator is told so every time.
  if (!config.otaSigningKey) console.warn(backupMessage(lang, 'signingKeyApart', { dir: join(config.dataDir, SIGNING_FOLDER) }))
} catch (e) {
  if (e instanceof BackupRefused) fail(e.text(lang), 2)
  throw e
}
