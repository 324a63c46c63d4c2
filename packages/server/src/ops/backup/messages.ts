// The backup and restore commands speak to an operator at a terminal, not to a browser: their
// language comes from the shell's locale (LC_ALL, LC_MESSAGES, LANG), Chinese for any zh locale.

export type CliLanguage = 'en_US' | 'zh_CN'

const en = {
  pgRefused:
    'The database is PostgreSQL: this command backs up SQLite only. Back it up with pg_dump, then copy the stored files (docs/ops/backup.md):\n  pg_dump --format=custom --file=velo-{stamp}.dump "{url}"\n  cp -a "{storage}" velo-{stamp}-files',
  memoryDatabase: 'An in-memory database (DATABASE_URL=sqlite::memory:) has nothing on disk to back up.',
  noDatabase: 'There is no database at {file}: nothing to back up (is DATABASE_URL the server’s?).',
  targetNotEmpty: 'The backup folder {dir} already exists and is not empty: choose a new folder.',
  targetInStorage: 'The backup folder {dir} is inside STORAGE_DIR ({storage}): the backup would copy itself. Choose a folder outside it.',
  copyDamaged: 'The copy of the database failed SQLite’s integrity check ({detail}): no backup was written.',
  backupDone: 'Backup written to {dir}\n  database {size} bytes, {files} stored files ({filesSize} bytes), {migrations} migrations applied',
  signingKeyApart:
    'Not in the backup: the OTA signing key ({dir}), on purpose (a backup travels further than the server). Keep a copy of that folder apart, somewhere safe: a server restored without it makes a new key, and devices refuse every upgrade signed with it (docs/ops/backup.md).',
  notABackup: '{dir} is not a complete backup: {file} is missing. Nothing was restored.',
  manifestTampered: 'manifest.json does not match manifest.sha256: the backup was changed or is damaged. Nothing was restored.',
  manifestInvalid: 'manifest.json cannot be read as a backup manifest ({detail}). Nothing was restored.',
  formatUnsupported: 'This backup’s format version {version} is not one this version of Velo Admin restores ({expected}). Nothing was restored.',
  notSqlite: 'This backup holds a {dialect} database: restore it with pg_restore (docs/ops/backup.md). Nothing was restored.',
  fileMissing: '{file} is listed in the manifest but missing from the backup: the backup is incomplete. Nothing was restored.',
  fileSize: '{file} is {actual} bytes, the manifest says {expected}: the backup was changed or is damaged. Nothing was restored.',
  fileChecksum: '{file} does not match its SHA-256 in the manifest: the backup was changed or is damaged. Nothing was restored.',
  fileExtra: '{file} is in the backup but not in its manifest: the backup was changed. Nothing was restored.',
  unsafePath: 'The manifest names a file outside the backup ({file}). Nothing was restored.',
  restoreTargetNotEmpty:
    '{dir} already holds {entry}: restore only into a new or empty data folder, so that no database (a running server’s least of all) is overwritten. Nothing was restored.',
  restoreInsideBackup: 'The data folder {dir} is inside the backup {backup}: choose a folder outside it. Nothing was restored.',
  verified: 'Backup {dir} verified: manifest and {count} checksums match (taken {createdAt}, server {version}).',
  restored: 'Restored into {dir}. Start a server on it with:\n  DATABASE_URL=sqlite:{database} STORAGE_DIR={storage} npm start',
  pgDumpMissing: 'pg_dump ({command}) was not found: install the PostgreSQL client tools of the server’s major version on the server’s machine.',
  pgDumpFailed: 'pg_dump ended with code {code}: {detail}',
} as const

export type BackupMessageKey = keyof typeof en

const zh: Record<BackupMessageKey, string> = {
  pgRefused:
    '数据库是 PostgreSQL：本命令只备份 SQLite。请用 pg_dump 备份，再复制存储的文件（见 docs/ops/backup.md）：\n  pg_dump --format=custom --file=velo-{stamp}.dump "{url}"\n  cp -a "{storage}" velo-{stamp}-files',
  memoryDatabase: '内存数据库（DATABASE_URL=sqlite::memory:）在磁盘上没有可备份的内容。',
  noDatabase: '{file} 处没有数据库：没有可备份的内容（DATABASE_URL 是否与服务器的一致？）。',
  targetNotEmpty: '备份目录 {dir} 已存在且不为空：请选择一个新目录。',
  targetInStorage: '备份目录 {dir} 位于 STORAGE_DIR（{storage}）之内：备份会复制它自己。请选择其外的目录。',
  copyDamaged: '数据库副本未通过 SQLite 完整性检查（{detail}）：未写入备份。',
  backupDone: '备份已写入 {dir}\n  数据库 {size} 字节，存储文件 {files} 个（{filesSize} 字节），已应用迁移 {migrations} 个',
  signingKeyApart:
    '备份中不含 OTA 签名密钥（{dir}），这是有意为之（备份流转得比服务器更远）。请把该目录另行妥善保存一份：恢复时若没有它，服务器会生成新密钥，设备将拒绝用新密钥签名的所有升级（见 docs/ops/backup.md）。',
  notABackup: '{dir} 不是完整的备份：缺少 {file}。未恢复任何内容。',
  manifestTampered: 'manifest.json 与 manifest.sha256 不符：备份已被改动或已损坏。未恢复任何内容。',
  manifestInvalid: '无法把 manifest.json 读作备份清单（{detail}）。未恢复任何内容。',
  formatUnsupported: '此备份的格式版本 {version} 不是本版 Velo Admin 能恢复的（{expected}）。未恢复任何内容。',
  notSqlite: '此备份是 {dialect} 数据库：请用 pg_restore 恢复（见 docs/ops/backup.md）。未恢复任何内容。',
  fileMissing: '清单列出了 {file}，但备份中没有：备份不完整。未恢复任何内容。',
  fileSize: '{file} 为 {actual} 字节，清单记录为 {expected} 字节：备份已被改动或已损坏。未恢复任何内容。',
  fileChecksum: '{file} 与清单中的 SHA-256 不符：备份已被改动或已损坏。未恢复任何内容。',
  fileExtra: '{file} 在备份中但不在清单中：备份已被改动。未恢复任何内容。',
  unsafePath: '清单指向备份之外的文件（{file}）。未恢复任何内容。',
  restoreTargetNotEmpty: '{dir} 中已有 {entry}：只能恢复到新的或空的数据目录，以免覆盖任何数据库（尤其是正在运行的服务器的数据库）。未恢复任何内容。',
  restoreInsideBackup: '数据目录 {dir} 位于备份 {backup} 之内：请选择其外的目录。未恢复任何内容。',
  verified: '备份 {dir} 已校验：清单及 {count} 个校验和均一致（备份于 {createdAt}，服务器版本 {version}）。',
  restored: '已恢复到 {dir}。在其上启动服务器：\n  DATABASE_URL=sqlite:{database} STORAGE_DIR={storage} npm start',
  pgDumpMissing: '未找到 pg_dump（{command}）：请在服务器所在机器上安装与数据库主版本一致的 PostgreSQL 客户端工具。',
  pgDumpFailed: 'pg_dump 以代码 {code} 结束：{detail}',
}

const catalogs: Record<CliLanguage, Record<BackupMessageKey, string>> = { en_US: en, zh_CN: zh }

export function cliLanguage(env: NodeJS.ProcessEnv = process.env): CliLanguage {
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || ''
  return /^zh/i.test(locale) ? 'zh_CN' : 'en_US'
}

export type MessageParams = Record<string, string | number>

export function backupMessage(lang: CliLanguage, key: BackupMessageKey, params: MessageParams = {}): string {
  return catalogs[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) => (params[name] === undefined ? whole : String(params[name])))
}

/** A refusal the operator acts on (exit code 2): the message is theirs, in either language. */
export class BackupRefused extends Error {
  constructor(
    readonly key: BackupMessageKey,
    readonly params: MessageParams = {},
  ) {
    super(backupMessage('en_US', key, params))
  }

  text(lang: CliLanguage): string {
    return backupMessage(lang, this.key, this.params)
  }
}
