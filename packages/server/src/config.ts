import { statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_FILE_MAX_BYTES } from '@velo/shared'
import { z } from 'zod'

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes')

const port = z.coerce.number({ message: 'must be a port number' }).int().min(0).max(65535)

const EnvSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  API_PREFIX: z
    .string()
    .regex(/^\/[A-Za-z0-9_\-/]*[A-Za-z0-9_-]$/, 'must start with / and not end with /')
    .default('/api'),
  DATABASE_URL: z
    .string()
    .refine((v) => /^(postgres(ql)?:\/\/|sqlite:|file:)/.test(v) || !v.includes('://'), {
      message: 'must be postgres://…, sqlite:<path> or a file path',
    })
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  REDIS_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'must be 1 to 64 letters, digits or _ : . -').default('velo:'),
  MQTT_URL: z
    .string()
    .regex(/^(mqtts?|wss?|tcp):\/\//, 'must start with mqtt:// (or mqtts, ws, wss, tcp)')
    .optional(),
  MQTT_PORT: port.default(1883),
  MQTT_SHARE_GROUP: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _')
    .default('velo'),
  MQTT_PUBLIC_URL: z
    .string()
    .regex(/^(mqtts?|wss?):\/\/[^\s]+$/, 'must start with mqtt:// (or mqtts, ws, wss)')
    .optional(),
  MQTT_HOOK_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  MQTT_GATEWAY_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _')
    .optional(),
  MQTT_SESSION_EXPIRY: z.coerce.number({ message: 'must be a whole number of seconds' }).int().min(0).max(86_400).default(600),
  INGEST_MAX_PENDING: z.coerce.number({ message: 'must be a whole number' }).int().min(100).max(1_000_000).default(20_000),
  DATA_DIR: z.string().min(1).default('./data'),
  STORAGE_DIR: z.string().min(1).optional(),
  WEB_DIR: z.string().min(1).optional(),
  ADMIN_PASSWORD: z
    .string()
    .regex(/^[\x21-\x7e]{6,20}$/, 'must be 6 to 20 letters, digits or special characters')
    .optional(),
  CAPTCHA_ENABLED: bool.optional(),
  SESSION_TTL_MINUTES: z.coerce.number({ message: 'must be a number of minutes' }).int().min(1).max(525600).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Velo Admin <no-reply@velo.local>'),
  MAIL_DIR: z.string().min(1).optional(),
  UPLOAD_MAX_MB: z.coerce.number({ message: 'must be a number' }).positive().max(1024).default(10),
  IMPORT_MAX_MB: z.coerce.number({ message: 'must be a number' }).positive().max(1024).default(50),
  FILE_MAX_MB: z.coerce.number({ message: 'must be a number' }).positive().max(1024 * 1024).default(DEFAULT_FILE_MAX_BYTES / 1024 / 1024),
  FILE_SWEEP_GRACE_HOURS: z.coerce.number({ message: 'must be a number of hours' }).positive().max(8760).default(24),
  TRUST_PROXY: bool.default(false),
  SQLITE_READER_THREADS: z.coerce.number({ message: 'must be a whole number' }).int().min(0).max(64).optional(),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_PORT: port.optional(),
  BACKUP_DIR: z.string().min(1).optional(),
  SQL_READ_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres://').optional(),
  SQL_WRITE_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres://').optional(),
  JOB_CONCURRENCY: z.coerce.number({ message: 'must be a whole number' }).int().min(0).max(64).default(2),
  JOB_STALE_SECONDS: z.coerce.number({ message: 'must be a number of seconds' }).min(1).max(3600).default(60),
  JOB_RETENTION_DAYS: z.coerce.number({ message: 'must be a number of days' }).positive().max(3650).default(7),
  RESPONSE_CHECK: bool.default(false),
  SSE_MAX_PER_SESSION: z.coerce.number({ message: 'must be a whole number' }).int().min(1).max(1000).default(8),
  SSE_MAX_PER_USER: z.coerce.number({ message: 'must be a whole number' }).int().min(1).max(10000).default(20),
  API_DOCS: z.enum(['staff', 'public', 'off'], { message: 'must be staff, public or off' }).default('staff'),
  SOURCE_URL: z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// address').optional(),
  MAP_STYLE_URL: z.string().regex(/^(https?:\/\/[^\s]+|\/(?!\/)[^\s]*)$/, 'must be an http:// or https:// address of a MapLibre style, or a path on this server').optional(),
  MAP_ORIGINS: z
    .string()
    .regex(/^\s*https?:\/\/[^\s,/]+\s*(,\s*https?:\/\/[^\s,/]+\s*)*$/, 'must be origins (https://tiles.example.com), comma-separated')
    .optional(),
  API_DOCS_URL: z
    .string()
    .regex(/^(https?:\/\/[^\s]+|\/(?!\/)[^\s]*)$/, 'must be an http:// or https:// address, or a path on this server such as /api/docs')
    .optional(),
  OTA_SIGNING_KEY: z.string().min(40, 'must be an Ed25519 private key: PKCS#8 PEM, or its DER in base64').optional(),
  OTA_SIGNING_PUBLIC_KEYS: z
    .string()
    .regex(/^\s*[A-Za-z0-9+/]{43}=\s*(,\s*[A-Za-z0-9+/]{43}=\s*)*$/, 'must be raw 32-byte Ed25519 public keys in base64, comma-separated')
    .optional(),
  IDENTITY_KEY: z
    .string()
    .regex(/^\s*[A-Za-z0-9+/]{43}=\s*$/, 'must be a random 32-byte key in base64 (openssl rand -base64 32)')
    .optional(),
  STEP_UP_MINUTES: z.coerce.number({ message: 'must be a number of minutes' }).min(0).max(1440).default(5),
  PASSKEY_RP_ID: z
    .string()
    .regex(/^\s*[a-z0-9.-]+\s*$/i, 'must be a host name, such as admin.example.com (no scheme, no port)')
    .optional(),
  PASSKEY_ORIGINS: z
    .string()
    .regex(/^\s*https?:\/\/[^\s,]+\s*(,\s*https?:\/\/[^\s,]+\s*)*$/, 'must be origins such as https://admin.example.com, comma-separated')
    .optional(),
  OIDC_ISSUER: z
    .string()
    .regex(/^https?:\/\/[^\s?#]+$/, 'must be the https:// address of the identity provider (its issuer), without ? or #')
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(255).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(1024).optional(),
  OIDC_SCOPES: z
    .string()
    .regex(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, 'must be scopes separated by single spaces')
    .refine((v) => v.split(' ').includes('openid'), 'must include openid')
    .default('openid email profile'),
  OIDC_NAME: z.string().trim().min(1).max(64).optional(),
  OIDC_GROUPS_CLAIM: z.string().regex(/^[\w:./-]{1,128}$/, 'must be the name of a claim').default('groups'),
  OIDC_REDIRECT_URL: z
    .string()
    .regex(/^https?:\/\/[^\s?#]+$/, 'must be an http:// or https:// address without ? or #, ending in {API_PREFIX}/auth/oidc/callback')
    .optional(),
  OIDC_PASSWORD_SIGN_IN: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on'),
  OIDC_BREAK_GLASS_USERS: z
    .string()
    .regex(/^\s*[A-Za-z0-9]{1,64}\s*(,\s*[A-Za-z0-9]{1,64}\s*)*$/, 'must be user names separated by commas')
    .default('admin'),
})

/** Single sign-on with an OpenID Connect provider (platform/auth/sso); absent when OIDC_ISSUER is unset. */
export interface OidcConfig {
  issuer: string
  clientId: string
  /** Unset: a public client, which proves itself by PKCE alone. Never shown, exported or logged. */
  clientSecret?: string
  scopes: string
  /** The sign-in button's name for the provider, "Sign in with {name}"; unset, the page says "single sign-on" in its language. */
  name?: string
  groupsClaim: string
  /** The callback the provider sends the browser back to; unset, it is made from each request's origin. */
  redirectUrl?: string
  /** false: password sign-in is refused to everyone but the break-glass users. */
  passwordSignIn: boolean
  breakGlassUsers: readonly string[]
}

export type DatabaseTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string }

export interface AppConfig {
  port: number
  host: string
  apiPrefix: string
  database: DatabaseTarget
  redisUrl?: string
  /** Prefix of every Redis key and channel: deployments (or test databases) sharing one Redis keep apart. */
  redisPrefix: string
  mqttUrl?: string
  mqttPort: number
  /** Servers sharing one external broker split device traffic in this shared-subscription group. */
  mqttShareGroup: string
  /** Where devices reach the broker, told to them on registration. */
  mqttPublicUrl?: string
  /** Secret EMQX sends (header x-velo-hook-token) to the auth/ACL hooks; unset = no hooks. */
  mqttHookToken?: string
  /**
   * This instance's client id on an external broker, stable across its restarts: its session (and
   * what it had not acknowledged) outlives a crash for mqttSessionExpiry seconds. Unset: a new id
   * and a clean session at each start.
   */
  mqttGatewayId?: string
  mqttSessionExpiry: number
  /** Device messages taken in and not yet written, at most, before the gateway stops reading (gateway/ingest.ts). */
  ingestMaxPending: number
  /** The folder the database, stored files, mails and backups default to (DATA_DIR). */
  dataDir: string
  storageDir: string
  webDir?: string
  adminPassword?: string
  /** Undefined leaves the decision to the config key sys.account.captchaEnabled. */
  captchaEnabled?: boolean
  sessionTtlMinutes: number
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL']
  /** JSON lines, readable lines, or (auto) readable at a terminal only. */
  logFormat: z.infer<typeof EnvSchema>['LOG_FORMAT']
  smtpUrl?: string
  mailFrom: string
  /** Without SMTP, mails are written here as .eml files (read by whoever runs the server). */
  mailDir: string
  uploadMaxBytes: number
  /** Excel imports are larger than images: 100,000 rows is about 10 MB. */
  importMaxBytes: number
  /** Largest file a `file` field takes when its definition sets no maxBytes (firmware, videos). */
  fileMaxBytes: number
  /** An upload of a `file` field that no row holds this long after it arrived is deleted (platform/files/sweep.ts). */
  fileSweepGraceMs: number
  trustProxy: boolean
  /** SQLite only: worker threads that answer reads beside the event loop (db/sqlite-readers.ts); 0 reads on the loop's thread. */
  sqliteReaderThreads: number
  /** Bearer token of GET /metrics on the main port; unset, only the metrics listener (if any) serves it. */
  metricsToken?: string
  /** A second listener serving only /metrics, without a token (METRICS_PORT; 0 takes a free port). */
  metrics?: { host: string; port: number }
  /** Where `npm run backup` writes (BACKUP_DIR). */
  backupDir: string
  /** PostgreSQL: the login SQL execution reads as (SELECT grants only), instead of the role the server creates. */
  sqlReadDatabaseUrl?: string
  /** PostgreSQL: the login SQL execution writes as (no grants on secret tables and columns). */
  sqlWriteDatabaseUrl?: string
  /** Jobs this instance runs at once; 0 runs none here (the instance only queues them). */
  jobConcurrency: number
  /** A running job whose holder has not written its heartbeat for this long is taken over or failed. */
  jobStaleMs: number
  /** Finished jobs, and their result files, are removed after this long. */
  jobRetentionMs: number
  /** Check every answer against its route's response schema too (the tests; platform/responses.ts). */
  responseCheck: boolean
  /** Event streams one session, and one user over all their sessions, may hold open on this instance (platform/sse.ts). */
  sseMaxPerSession: number
  sseMaxPerUser: number
  /** Who gets the OpenAPI page and document at {API_PREFIX}/docs: signed-in staff, anyone, or nobody (404). */
  apiDocs: 'staff' | 'public' | 'off'
  /** MAP_STYLE_URL: the MapLibre style of IoT › Map's base map; unset, the world map shipped with the console (no request leaves the server). */
  mapStyleUrl?: string
  /** The origins the base map loads from (the style's, and MAP_ORIGINS: its tiles, glyphs and sprites), let through the pages' content security policy. */
  mapOrigins: string[]
  /** SOURCE_URL: where the navbar's source-code link points; unset, the navbar shows none. */
  sourceUrl?: string
  /** API_DOCS_URL: where the navbar's API documentation link points (this server's own is {API_PREFIX}/docs); unset, none. */
  apiDocsUrl?: string
  /** OTA_SIGNING_KEY: the Ed25519 key manifests are signed with, instead of DATA_DIR/ota-signing's (every instance gets the same). */
  otaSigningKey?: string
  /** OTA_SIGNING_PUBLIC_KEYS: more public keys devices keep trusting during a rotation. */
  otaSigningPublicKeys?: string[]
  /** IDENTITY_KEY: the key second factors' secrets are sealed with, instead of DATA_DIR/identity's (every instance gets the same). */
  identityKey?: string
  /** STEP_UP_MINUTES: how long a second proof lets dangerous actions through without another. */
  stepUpMinutes: number
  /** PASSKEY_RP_ID and PASSKEY_ORIGINS: the host passkeys are bound to, and the pages that may use them (else the request's own). */
  passkeys: { rpId?: string; origins?: string[] }
  /** OIDC_*: single sign-on; undefined when it is not configured. */
  oidc?: OidcConfig
}

export class ConfigError extends Error {}

/** Variables whose value a configuration error does not repeat. */
const UNSHOWN = new Set(['OIDC_CLIENT_SECRET'])

/**
 * The repository's root (the folder holding packages/): two levels above this file, from src/ (tsx)
 * and from dist/ (the bundle) alike. Relative paths of the configuration are relative to it, not to
 * the working directory: `npm start` at the root, `npm run dev` or `npm run backup` (which npm runs in
 * packages/server) and a service started from anywhere all find the same data.
 */
export const BASE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const fromBase = (path: string) => resolve(BASE_DIR, path)

function databaseTarget(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url }
  const file = url.replace(/^(sqlite|file):(\/\/)?/, '')
  return { dialect: 'sqlite', file: file === ':memory:' ? file : fromBase(file) }
}

/** Whether `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..')
}

const kindOf = (path: string): 'file' | 'folder' | undefined => {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file'
  } catch {
    return undefined
  }
}

/**
 * The data places, each its own variable or DATA_DIR's default, checked before anything is opened:
 * every folder a folder, and nothing private inside STORAGE_DIR, whose files any signed-in user may
 * download by name (GET /common/download) and every backup copies.
 */
function checkPlaces(known: Record<string, unknown>, places: { name: string; path: string; file?: boolean }[]) {
  const named = ({ name, path }: { name: string; path: string }) => {
    const raw = known[name]
    if (raw === undefined) return `${name} (default ${path})`
    return typeof raw === 'string' && (raw === path || raw.endsWith(`:${path}`)) ? `${name}=${JSON.stringify(raw)}` : `${name}=${JSON.stringify(raw)} (${path})`
  }
  const fail = (message: string) => {
    throw new ConfigError(`Invalid configuration: ${message}`)
  }
  for (const place of places) {
    const kind = kindOf(place.path)
    if (kind === 'file' && !place.file) fail(`${named(place)} is a file, not a folder`)
    if (kind === 'folder' && place.file) fail(`${named(place)} is a folder, not a database file`)
  }
  const storage = places.find((p) => p.name === 'STORAGE_DIR')!
  const why: Record<string, string> = {
    DATABASE_URL: 'any signed-in user could download the database',
    MAIL_DIR: 'any signed-in user could download the mails (password-reset codes)',
    BACKUP_DIR: 'a backup would copy itself, and any signed-in user could download it',
    'DATA_DIR/ota-signing': 'any signed-in user could download the OTA signing key, and every backup would copy it',
    'DATA_DIR/identity': 'any signed-in user could download the key that seals second factors, and every backup would copy it',
  }
  for (const place of places) {
    if (why[place.name] && within(place.path, storage.path)) fail(`${named(place)} is inside ${named(storage)}: ${why[place.name]}; set ${place.name} to a place outside it`)
  }
}

/** Reads configuration from the environment; throws ConfigError with a one-line explanation. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.shape).flatMap((k) => (env[k] === undefined || env[k] === '' ? [] : [[k, env[k]]])),
  )
  const parsed = EnvSchema.safeParse(known)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const name = String(issue.path[0] ?? 'configuration')
    // A secret is not repeated where the message goes: a terminal, a service's log.
    const shown = UNSHOWN.has(name) ? '(hidden)' : JSON.stringify(known[name] ?? '')
    throw new ConfigError(`Invalid configuration: ${name}=${shown} ${issue.message}`)
  }
  const e = parsed.data
  // A navbar link to the documentation this server was told not to serve would answer 404.
  const ownDocs = `${e.API_PREFIX}/docs`
  const linksOwnDocs = !!e.API_DOCS_URL?.startsWith(ownDocs) && /^([/?#]|$)/.test(e.API_DOCS_URL.slice(ownDocs.length))
  if (e.API_DOCS === 'off' && linksOwnDocs) {
    throw new ConfigError(`Invalid configuration: API_DOCS_URL=${JSON.stringify(e.API_DOCS_URL)} is the OpenAPI page API_DOCS=off does not serve; set API_DOCS to staff or public, or API_DOCS_URL to another address`)
  }
  const oidc = oidcConfig(e)
  // One data folder by default, each place still set on its own.
  const dataDir = fromBase(e.DATA_DIR)
  const database: DatabaseTarget = e.DATABASE_URL ? databaseTarget(e.DATABASE_URL) : { dialect: 'sqlite', file: join(dataDir, 'velo.db') }
  const storageDir = e.STORAGE_DIR ? fromBase(e.STORAGE_DIR) : join(dataDir, 'files')
  const mailDir = e.MAIL_DIR ? fromBase(e.MAIL_DIR) : join(dataDir, 'mail')
  const backupDir = e.BACKUP_DIR ? fromBase(e.BACKUP_DIR) : join(dataDir, 'backups')
  checkPlaces(known, [
    ...(e.DATABASE_URL && e.STORAGE_DIR && e.MAIL_DIR && e.BACKUP_DIR ? [] : [{ name: 'DATA_DIR', path: dataDir }]),
    { name: 'STORAGE_DIR', path: storageDir },
    { name: 'MAIL_DIR', path: mailDir },
    { name: 'BACKUP_DIR', path: backupDir },
    // DATA_DIR/ota-signing holds the private key manifests are signed with (modules/ota/signing).
    { name: 'DATA_DIR/ota-signing', path: join(dataDir, 'ota-signing') },
    // DATA_DIR/identity holds the key second factors' secrets are sealed with (platform/auth/factors).
    { name: 'DATA_DIR/identity', path: join(dataDir, 'identity') },
    ...(database.dialect === 'sqlite' && database.file !== ':memory:' ? [{ name: 'DATABASE_URL', path: database.file, file: true }] : []),
  ])
  return {
    port: e.PORT,
    host: e.HOST,
    apiPrefix: e.API_PREFIX,
    database,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    mqttUrl: e.MQTT_URL,
    mqttPort: e.MQTT_PORT,
    mqttShareGroup: e.MQTT_SHARE_GROUP,
    mqttPublicUrl: e.MQTT_PUBLIC_URL,
    mqttHookToken: e.MQTT_HOOK_TOKEN,
    mqttGatewayId: e.MQTT_GATEWAY_ID,
    mqttSessionExpiry: e.MQTT_SESSION_EXPIRY,
    ingestMaxPending: e.INGEST_MAX_PENDING,
    dataDir,
    storageDir,
    webDir: e.WEB_DIR ? resolve(e.WEB_DIR) : undefined,
    adminPassword: e.ADMIN_PASSWORD,
    captchaEnabled: e.CAPTCHA_ENABLED,
    sessionTtlMinutes: e.SESSION_TTL_MINUTES,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailDir,
    uploadMaxBytes: Math.round(e.UPLOAD_MAX_MB * 1024 * 1024),
    importMaxBytes: Math.round(e.IMPORT_MAX_MB * 1024 * 1024),
    fileMaxBytes: Math.round(e.FILE_MAX_MB * 1024 * 1024),
    fileSweepGraceMs: Math.round(e.FILE_SWEEP_GRACE_HOURS * 3600 * 1000),
    trustProxy: e.TRUST_PROXY,
    // Two: the bench's list serves 1.9× what the event loop's own reads do (one thread: 1.5×). Reads
    // then answer in the order they finish; code that needs one answer before another awaits it.
    sqliteReaderThreads: e.SQLITE_READER_THREADS ?? Math.min(2, availableParallelism()),
    metricsToken: e.METRICS_TOKEN,
    metrics: e.METRICS_PORT === undefined ? undefined : { host: e.METRICS_HOST, port: e.METRICS_PORT },
    backupDir,
    sqlReadDatabaseUrl: e.SQL_READ_DATABASE_URL,
    sqlWriteDatabaseUrl: e.SQL_WRITE_DATABASE_URL,
    jobConcurrency: e.JOB_CONCURRENCY,
    jobStaleMs: Math.round(e.JOB_STALE_SECONDS * 1000),
    jobRetentionMs: Math.round(e.JOB_RETENTION_DAYS * 24 * 3600 * 1000),
    responseCheck: e.RESPONSE_CHECK,
    sseMaxPerSession: e.SSE_MAX_PER_SESSION,
    sseMaxPerUser: e.SSE_MAX_PER_USER,
    apiDocs: e.API_DOCS,
    mapStyleUrl: e.MAP_STYLE_URL,
    mapOrigins: [...new Set([...(e.MAP_STYLE_URL && /^https?:/.test(e.MAP_STYLE_URL) ? [new URL(e.MAP_STYLE_URL).origin] : []), ...(e.MAP_ORIGINS?.split(',').map((o) => new URL(o.trim()).origin) ?? [])])],
    sourceUrl: e.SOURCE_URL,
    apiDocsUrl: e.API_DOCS_URL,
    otaSigningKey: e.OTA_SIGNING_KEY,
    otaSigningPublicKeys: e.OTA_SIGNING_PUBLIC_KEYS?.split(',').map((k) => k.trim()),
    identityKey: e.IDENTITY_KEY?.trim(),
    stepUpMinutes: e.STEP_UP_MINUTES,
    passkeys: { rpId: e.PASSKEY_RP_ID?.trim().toLowerCase(), origins: e.PASSKEY_ORIGINS?.split(',').map((o) => o.trim().replace(/\/$/, '')) },
    oidc,
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/

/** The OIDC_* variables as one setting, or undefined without an issuer; a half-configured one stops the start. */
function oidcConfig(e: z.infer<typeof EnvSchema>): OidcConfig | undefined {
  const fail = (message: string): never => {
    throw new ConfigError(`Invalid configuration: ${message}`)
  }
  if (!e.OIDC_ISSUER) {
    if (e.OIDC_CLIENT_ID) fail('OIDC_CLIENT_ID is set without OIDC_ISSUER: set both for single sign-on, or neither')
    // Off without another way in would leave only the break-glass accounts.
    if (e.OIDC_PASSWORD_SIGN_IN === 'off') fail('OIDC_PASSWORD_SIGN_IN=off needs single sign-on: set OIDC_ISSUER and OIDC_CLIENT_ID too')
    return undefined
  }
  if (!e.OIDC_CLIENT_ID) fail('OIDC_ISSUER is set without OIDC_CLIENT_ID: register this console with the identity provider and set its client id')
  // Tokens and the client secret travel over this address: plain http only to a provider on this machine (a test, a trial).
  const issuer = new URL(e.OIDC_ISSUER)
  if (issuer.protocol !== 'https:' && !LOOPBACK.test(issuer.hostname)) fail(`OIDC_ISSUER=${JSON.stringify(e.OIDC_ISSUER)} must be an https:// address (http:// only for localhost)`)
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID!,
    clientSecret: e.OIDC_CLIENT_SECRET,
    scopes: e.OIDC_SCOPES,
    name: e.OIDC_NAME,
    groupsClaim: e.OIDC_GROUPS_CLAIM,
    redirectUrl: e.OIDC_REDIRECT_URL,
    passwordSignIn: e.OIDC_PASSWORD_SIGN_IN === 'on',
    breakGlassUsers: e.OIDC_BREAK_GLASS_USERS.split(',').map((u) => u.trim()),
  }
}
