// Backup and restore of a SQLite deployment (npm run backup / npm run restore; docs/ops/backup.md).
// PostgreSQL is backed up with pg_dump and pg_restore, which this refuses to stand in for.
export { backupFolderName, copyStoredFiles, createBackup, createPostgresBackup, defaultBackupTarget, redactUrl, snapshotSqlite, type BackupOptions, type BackupResult, type PostgresBackupOptions } from './backup'
export { restoreBackup, verifyBackup, type RestoreResult } from './restore'
export { BackupRefused, backupMessage, cliLanguage, type BackupMessageKey, type CliLanguage } from './messages'
export { DATABASE_FILE, FILES_FOLDER, PG_DUMP_FILE, sha256File, listFiles, manifestSumLine, MANIFEST_FORMAT, MANIFEST_FILE, MANIFEST_SUM_FILE, MANIFEST_VERSION, type BackupManifest, type FileEntry } from './manifest'
