import ExcelJS from 'exceljs'
import { allEntities, editableFields, entityByKey, type FieldDef, type JobInfo, labelWithUnit, type Operation, OTA_PARTS, ownerOf, type Paged, type ResolvedEntity, stateAllowsEdit, stateRules, upTopic, writeSchema } from '@velo/shared'
import { type SelectQueryBuilder, sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { dynamicDb, type DynamicTables } from '../src/db/database'
import { crc8 } from '../src/platform/files/crc8'
import { multipart, limitedUser, readWorkbook, type Refusal, useTestApp } from './harness'

// The engine's contract, held by every registered entity through the HTTP API (issue 13): list,
// get, add, modify, delete, export and import where the definition offers them, 403 for a user
// whose role lacks the right, and bad input answered 4xx with nothing changed. Values come from
// the definition alone, so a new module is tested by being defined; module tests keep only the
// module's own rules. Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.

const t = useTestApp()
// The tables as the engine sees them: named by the definitions.
const db = () => dynamicDb(t.app.services.db)
type Row = Record<string, unknown>

/** What a module's own rules need beyond generic values; each entry says why. Keep it short. */
interface Override {
  /** Values the module insists on, in place of generated ones (add, modify and import). */
  values?: (n: number) => Row | Promise<Row>
  /** Makes one row of an entity the API cannot add to, as the product would. */
  row?: () => Promise<void>
  /** The requests of the test itself add rows: "nothing changed" means no row that was there changed. */
  grows?: boolean
  /** Fields the module's background work writes at any time (a SIM card's carrier sync): "nothing changed" leaves them out. */
  background?: readonly string[]
}
const OVERRIDES: Record<string, Override> = {
  // The carrier poll synchronises a new card within seconds (modules/iot/sim): its time moves on its own.
  iotSim: { background: ['lastSyncAt'] },
  // An item belongs to a dictionary type that exists (dictionaries module); generic text names none.
  dictData: { values: () => ({ dictType: 'sys_yes_no' }) },
  // A device's SN starts with its model's SN prefix (IoT devices module).
  iotDevice: {
    values: async (n) => {
      const model = await newest(entityByKey('iotModel'))
      const row = await db().selectFrom('iotModel').select(['modelId', 'snPrefix']).where('modelId', '=', model).executeTakeFirstOrThrow()
      return { modelId: Number(row.modelId), sn: `${row.snPrefix}${String(n).padStart(6, '0')}` }
    },
  },
  // Configuration pushes, reports and drift are written by the push job and the devices' reports (IoT config module), never added.
  iotConfigPush: {
    row: async () => {
      await db().insertInto('iotConfigPush' as never).values({ configId: await newest(entityByKey('iotConfig')), deviceId: await newest(entityByKey('iotDevice')), version: 'contract', status: 'sent', createBy: 'contract', createTime: new Date().toISOString() } as never).execute()
    },
  },
  iotConfigReport: {
    row: async () => {
      await db().insertInto('iotConfigReport' as never).values({ deviceId: await newest(entityByKey('iotDevice')), version: 'contract', values: '{}', reportedAt: new Date().toISOString() } as never).execute()
    },
  },
  iotConfigDrift: {
    row: async () => {
      await db().insertInto('iotConfigDrift' as never).values({ configId: await newest(entityByKey('iotConfig')), deviceId: await newest(entityByKey('iotDevice')), field: 'fallAngle', expected: '60', reported: '80', detectedAt: new Date().toISOString() } as never).execute()
    },
  },
  // Theft reports are written by the device's Report stolen and Recovered actions (modules/iot/stolen.ts), never added.
  iotTheft: {
    row: async () => {
      await db().insertInto('iotTheft' as never).values({ deviceId: await newest(entityByKey('iotDevice')), status: 'recovered', reason: 'contract', reportedBy: 'contract', reportedAt: new Date().toISOString(), previousValues: '{}' } as never).execute()
    },
  },
  // Every request, refused or not, is written to the operation log.
  operLog: { grows: true },
  // Code generation's rows come from importing a table of the database (modules/tool/gen), never added.
  genTable: {
    row: async () => {
      const config = { entityKey: 'contractNote', area: 'tool', path: '/tool/contractNote', permission: 'tool:contractNote', label: { en_US: 'Notes', zh_CN: '备注' }, template: 'plain', treeParent: null, columns: [] }
      await db().insertInto('toolGenTable' as never).values({ tableName: 'contract_note', tableComment: '', entityKey: 'contractNote', area: 'tool', template: 'plain', config: JSON.stringify(config), createBy: 'contract', createTime: new Date().toISOString() } as never).execute()
    },
  },
  // Alarms are raised by the rules on device data (IoT warnings module), never added.
  iotAlarm: {
    row: async () => {
      const { alarmsOf } = await import('../src/modules/iot/warnings/alarms')
      await alarmsOf(t.app.services).raise({ deviceId: await newest(entityByKey('iotDevice')), type: 'fault', code: 'CONTRACT' })
    },
  },
  // One configuration per event, of a handful (seeded): a free event, else the oldest row's; staff addresses must be e-mail addresses.
  iotMessageConfig: {
    values: async (n) => {
      const { NOTIFIED_EVENTS } = await import('@velo/shared')
      const rows = await db().selectFrom('iotMessageConfig').select(['messageConfigId', 'eventType']).orderBy('messageConfigId').execute()
      let eventType: string | undefined = NOTIFIED_EVENTS.find((e) => !rows.some((r) => r.eventType === e))
      if (!eventType) {
        await db().deleteFrom('iotMessageConfigRole').where('messageConfigId', '=', rows[0]!.messageConfigId).execute()
        await db().deleteFrom('iotMessageConfig').where('messageConfigId', '=', rows[0]!.messageConfigId).execute()
        eventType = String(rows[0]!.eventType)
      }
      return { eventType, staffEmails: `ct${n}@example.com` }
    },
  },
  // A declared CRC8 must be the uploaded file's (OTA catalogue): the sample firmware's; a modify keeps the file.
  ...Object.fromEntries(OTA_PARTS.map((part) => [`${part}Firmware`, { values: () => ({ crc8: crc8Hex(SAMPLE_FILES.bin!) }) }])),
  iotAudio: { values: () => ({ crc8: crc8Hex(SAMPLE_FILES.mp3!) }) },
  // The alarm types a campaign's pause counts are names of the alarm types, comma-separated (OTA rollout).
  ...Object.fromEntries(OTA_PARTS.map((part) => [`${part}Upgrade`, { values: () => ({ alarmTypes: 'fault,fall' }) }])),
  // A campaign's devices are queued by the rollout (OTA rollout module), never added.
  ...Object.fromEntries(
    OTA_PARTS.map((part) => [
      `${part}UpgradeDevice`,
      {
        row: async () => {
          const campaignId = await newest(entityByKey(`${part}Upgrade`))
          const deviceId = await newest(entityByKey('iotDevice'))
          await db().insertInto('otaCampaignDevice').values({ campaignId, deviceId, partKind: part, wave: 0, state: 'queued' }).execute()
        },
      },
    ]),
  ),
  // Only the mailer writes the outbox.
  mailOutbox: { row: () => t.app.services.mailer.send({ to: 'contract@example.com', subject: 'Contract test', body: 'Hello' }) },
  // Only the command service writes commands: a reboot waits queued for an offline device.
  iotCommand: {
    row: async () => {
      const res = await t.call({ method: 'POST', url: '/api/iot/device/reboot', token: t.admin, body: { deviceIds: [await newest(entityByKey('iotDevice'))] } })
      expect(res.status, res.msg).toBe(200)
    },
  },
  // Frame numbers are generated on an order (orders module), never added.
  frameNumber: {
    row: async () => {
      const modelId = await newest(entityByKey('bikeModel'))
      const n = ++serial
      const order = await t.call<{ orderId: number }>({
        method: 'POST',
        url: '/api/order/deviceOrder',
        token: t.admin,
        body: { orderNo: `PO-CONTRACT-${n}`, modelId, quantity: 10, salesRegion: 'EU', deliveryDate: '2026-12-01', purchasingEntity: 'Velo', tpNumber: 'TP-1', frameSupplier: 'Frames Ltd', brandCode: 'VL', manufacturerCode: 'A', modelYear: 2026, specCode: `K${n}` },
      })
      expect(order.status, order.msg).toBe(200)
      const res = await t.call<{ jobId: number }>({ method: 'POST', url: `/api/order/deviceOrder/${order.data.orderId}/action/generate`, token: t.admin, body: { count: 1 } })
      expect(res.status, res.msg).toBe(200)
      for (let i = 0; i < 250; i++) {
        const job = (await t.call<JobInfo>({ url: `/api/monitor/job/${res.data.jobId}`, token: t.admin })).data
        if (job.state === 'succeeded') return
        expect(job.state).not.toMatch(/failed|cancelled/)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
  },
  // Devices on the line are registered through the tool API (tool module), never added in the console.
  toolDevice: {
    row: async () => {
      const n = ++serial
      const email = `contract${n}@line.example.com`
      const user = await t.call({ method: 'POST', url: '/api/tool/user', token: t.admin, body: { companyName: 'Contract', email, password: 'secret12' } })
      expect(user.status, user.msg).toBe(200)
      const login = await t.call<{ token: string }>({ method: 'POST', url: '/api/tool-api/v1/auth/login', body: { email, password: 'secret12' } })
      expect(login.status, login.msg).toBe(200)
      const res = await t.call({ method: 'POST', url: '/api/tool-api/v1/devices', token: login.data.token, body: { sn: `VLTC${String(n).padStart(6, '0')}`, productId: 'VELO-4G' } })
      expect(res.status, res.msg).toBe(200)
    },
  },
  // Members sign up in the app: no add route; a row as the app writes it.
  member: {
    row: async () => {
      const n = ++serial
      await db().insertInto('memMember').values({ email: `member${n}@example.com`, firstName: 'Contract', lastName: `Member ${n}`, createBy: 'app', createTime: new Date().toISOString() }).execute()
    },
  },
  // The app uploads rides; staff only read them.
  ride: {
    row: async () => {
      const memberId = await newest(entityByKey('member'))
      const bikeId = await newest(entityByKey('bike'))
      await db().insertInto('memRide').values({ memberId, bikeId, uploadTime: new Date().toISOString(), distance: 12.5, duration: 2700, avgSpeed: 16.7, maxSpeed: 31.2, cadence: 72, calories: 310 }).execute()
    },
  },
  // Feedback comes from the app; staff reply (an action) and delete.
  feedback: {
    row: async () => {
      const memberId = await newest(entityByKey('member'))
      const inserted = await db()
        .insertInto('memFeedback')
        .values({ memberId, stars: 4, content: 'Contract feedback', createBy: 'app', createTime: new Date().toISOString() })
        .returning('feedbackId')
        .executeTakeFirstOrThrow()
      await db().insertInto('memFeedbackTagLink').values({ feedbackId: Number(inserted.feedbackId), tagId: await newest(entityByKey('feedbackTag')) }).execute()
    },
  },
  // An IoT device is fitted to one bike at a time (bikes module): each new bike gets one no bike has.
  bike: {
    values: async () => {
      const fitted = db().selectFrom('bikeBike').select('iotDeviceId').where('iotDeviceId', 'is not', null)
      const free = await db().selectFrom('iotDevice').select('deviceId').where('deviceId', 'not in', fitted).orderBy('deviceId', 'desc').limit(1).executeTakeFirst()
      return { iotDeviceId: free ? Number(free.deviceId) : Number((await addRow(entityByKey('iotDevice'))).deviceId) }
    },
  },
  // The other modules' hooks write a bike's history.
  bikeRecord: {
    row: async () => {
      const bikeId = await newest(entityByKey('bike'))
      const { frameNumber } = await db().selectFrom('bikeBike').select('frameNumber').where('bikeId', '=', bikeId).executeTakeFirstOrThrow()
      await db().insertInto('bikeRecord').values({ bikeId, frameNumber, eventKind: 'produced', detail: 'Contract test', eventTime: new Date().toISOString(), operBy: 'system' }).execute()
    },
  },
  // A time window ends after it starts (content module): the generic values start and end at one instant.
  activity: { values: () => ({ endTime: '2026-12-31T08:00:00.000Z' }) },
  banner: { values: () => ({ endTime: '2026-12-31T08:00:00.000Z' }) },
  // Only a push (content module) writes a member's inbox row.
  messageRecipient: {
    row: async () => {
      const messageId = await newest(entityByKey('message'))
      const memberId = await newest(entityByKey('member'))
      await db().insertInto('cntMessageRecipient').values({ messageId, memberId, createTime: new Date().toISOString() }).execute()
    },
  },
  // Members sign agreements in the app.
  protocolSignature: {
    row: async () => {
      const protocolId = await newest(entityByKey('protocol'))
      const memberId = await newest(entityByKey('member'))
      const p = await db().selectFrom('cntProtocol').select(['type', 'language', 'versionCode']).where('protocolId', '=', protocolId).executeTakeFirstOrThrow()
      await db().insertInto('cntProtocolSignature').values({ protocolId, memberId, ...p, signTime: new Date().toISOString() }).execute()
    },
  },
  // The app uploads its logs; staff only read, download and delete them.
  appUploadLog: {
    row: async () => {
      const memberId = await newest(entityByKey('member'))
      await db().insertInto('monAppUploadLog').values({ memberId, deviceId: 'contract-device', logType: 'log', platform: 'android', appVersion: '1.0.0', originalName: 'app.log', uploadTime: new Date().toISOString() }).execute()
    },
  },
  // Only devices' traffic writes messages, through the gateway's message log.
  iotMessage: {
    row: async () => {
      const deviceId = await newest(entityByKey('iotDevice'))
      const { sn } = await db().selectFrom('iotDevice').select('sn').where('deviceId', '=', deviceId).executeTakeFirstOrThrow()
      t.app.iot.messageLog.record({ deviceId, sn, direction: 'up', kind: 'status', topic: upTopic(sn, 'status'), payload: '{"v":1}' })
      await t.app.iot.messageLog.flush()
    },
  },
  // The app records its events (POST /app/v1/tracking/events); staff only read and export them.
  trackingEvent: {
    row: async () => {
      const memberId = await newest(entityByKey('member'))
      const now = new Date().toISOString()
      await db().insertInto('dashTrackingEvent').values({ memberId, code: 'app.launch', sessionId: 'contract-session', platform: 'ios', appVersion: '2.4.0', value: 812, eventTime: now, receiveTime: now }).execute()
    },
  },
  // Only devices' telemetry reports write the telemetry history, through its recorder.
  iotTelemetry: {
    row: async () => {
      const { telemetryRecorderOf } = await import('../src/modules/iot/collections')
      const deviceId = await newest(entityByKey('iotDevice'))
      const { sn, modelId } = await db().selectFrom('iotDevice').select(['sn', 'modelId']).where('deviceId', '=', deviceId).executeTakeFirstOrThrow()
      const payload = { v: 1 as const, battery: 64, signal: -70, gps: { lat: 52.5, lng: 13.4, speed: 12, satellites: 8 }, locked: false }
      const recorder = telemetryRecorderOf(t.app.services)
      recorder.record({ device: { deviceId, sn, modelId: Number(modelId) }, kind: 'telemetry', topic: upTopic(sn, 'telemetry'), payload, raw: JSON.stringify(payload), receivedAt: Date.now() })
      await recorder.flush()
    },
  },
}

let serial = 0
const crc8Hex = (bytes: Buffer) => crc8(bytes).toString(16).toUpperCase().padStart(2, '0')
const SKIP = Symbol('no value')
const has = (e: ResolvedEntity, op: Operation) => e.operations.includes(op)
const ACTION: Record<Operation, string> = { list: 'list', get: 'query', add: 'add', edit: 'edit', remove: 'remove', export: 'export', import: 'import' }
const perm = (e: ResolvedEntity, op: Operation) => `${e.permission}:${ACTION[op]}`
/** The field whose value only named steps change (a workflow's status): never written directly. */
const stepField = (e: ResolvedEntity) => e.transitions?.field
const count = async (e: ResolvedEntity, upTo?: number) => {
  let q = db().selectFrom(e.table).select((eb) => eb.fn.countAll<number>().as('n'))
  if (upTo !== undefined) q = q.where(e.idField, '<=', upTo)
  return Number((await q.executeTakeFirstOrThrow()).n)
}

/** Counts the rows as "nothing changed" means it: for a table the test's own requests add to, those there now. */
async function rowCounter(e: ResolvedEntity): Promise<() => Promise<number>> {
  if (!OVERRIDES[e.key]?.grows) return () => count(e)
  const top = await db().selectFrom(e.table).select(e.idField).orderBy(e.idField, 'desc').limit(1).executeTakeFirst()
  const upTo = Number(top?.[e.idField] ?? 0)
  return () => count(e, upTo)
}

/**
 * The newest row of an entity (seeded or made by an earlier entity's test), made if there is none:
 * through the API, or as the product writes it for an entity the API cannot add to (OVERRIDES row).
 */
async function newest(e: ResolvedEntity): Promise<number> {
  // A slice's rows only: a display product takes no IoT supplier.
  const row = await inSliceOf(e, db().selectFrom(e.table).select(e.idField)).orderBy(e.idField, 'desc').limit(1).executeTakeFirst()
  if (row) return Number(row[e.idField])
  const make = OVERRIDES[e.key]?.row
  if (!has(e, 'add') && make) {
    await make()
    return newest(e)
  }
  return Number((await addRow(e))[e.idField])
}

/** The rows an entity sees of its table (a part's slice of a table the four parts share). */
const inSliceOf = <O>(e: ResolvedEntity, q: SelectQueryBuilder<DynamicTables, string, O>) => (e.slice ? q.where(e.slice.column, '=', e.slice.value) : q)

/** A text that fits the field's length, in a few shapes: one of them fits most patterns. */
function textShapes(f: { min?: number; max?: number }, n: number): string[] {
  const fit = (s: string) => {
    const long = f.min && s.length < f.min ? s + s.charAt(0).repeat(f.min - s.length) : s
    return f.max && long.length > f.max ? long.slice(-f.max) : long
  }
  // A colour (#RRGGBB) and a MAC address (00:1A:…), from the same number.
  const hex = (digits: number) => n.toString(16).toUpperCase().padStart(digits, '0').slice(-digits)
  const mac = hex(12).match(/../g)!.join(':')
  // A time of day (HH:MM), as a daily window's ends are.
  const time = `${String(n % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`
  return [`ct${n}`, `CT${n}`, `Ct_${n}`, `ct.${n}`, `ct-${n}`, `${n}`, `https://example.com/ct${n}`, `#${hex(6)}`, mac, time].map(fit)
}

function letterCode(n: number, max: number): string {
  const letter = (i: number) => String.fromCharCode(90 - (i % 26))
  return max === 1 ? letter(n) : letter(Math.floor(n / 26)) + letter(n)
}

/** Already stored, in any case (unique checks ignore case). */
async function taken(e: ResolvedEntity, f: FieldDef, value: unknown): Promise<boolean> {
  const stored = writeSchema(f, 'add').parse(value)
  const q = db().selectFrom(e.table).select(e.idField)
  const row = await (typeof stored === 'string' ? q.where(sql`lower(${sql.ref(f.name)})`, '=', stored.toLowerCase()) : q.where(f.name, '=', stored)).executeTakeFirst()
  return !!row
}

/** The first candidate the shared value schema takes (and, for a unique field, no row holds). */
async function fitting(e: ResolvedEntity, f: FieldDef, candidates: (n: number) => unknown[]): Promise<unknown> {
  for (let tries = 0; tries < 50; tries++) {
    for (const v of candidates(++serial)) {
      if (!writeSchema(f, 'add').safeParse(v).success) continue
      if (f.unique && (await taken(e, f, v))) continue
      return v
    }
  }
  throw new Error(`${e.key}.${f.name}: no generic value fits the definition; give one in OVERRIDES`)
}

async function dictValue(dict: string): Promise<string> {
  const item = await db().selectFrom('sysDictData').select('dictValue').where('dictType', '=', dict).orderBy('dictSort').orderBy('dictCode').executeTakeFirst()
  if (!item) throw new Error(`dictionary ${dict} has no items: seed it`)
  return String(item.dictValue)
}

/** Small files whose content is what their extension says (uploads sniff it). */
const SAMPLE_FILES: Record<string, Buffer> = {
  png: Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex'),
  pdf: Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n'),
  txt: Buffer.from('contract test\n'),
  // Firmware is any bytes; an MP3 starts with its ID3 tag.
  bin: Buffer.from('contract firmware image\n'),
  mp3: Buffer.concat([Buffer.from('ID3'), Buffer.alloc(64, 0x20)]),
}

/** Uploads a sample file the way the field's input does; SKIP when no sample fits its types. */
async function uploaded(e: ResolvedEntity, f: FieldDef & { kind: 'image' | 'file' }): Promise<unknown> {
  const accept = f.kind === 'file' ? f.accept : ['png']
  const extension = accept.find((x) => SAMPLE_FILES[x])
  if (!extension) {
    if (f.required) throw new Error(`${e.key}.${f.name}: no sample file of ${accept.join(', ')}; give one in OVERRIDES`)
    return SKIP
  }
  const boundary = `----contract${++serial}`
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="sample.${extension}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    SAMPLE_FILES[extension]!,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  // Images go to the common upload; a file field has its own route, which ties the file to it.
  const url = f.kind === 'image' ? '/api/common/upload' : `/api${e.path}/file/${f.name}`
  const res = await t.call<{ fileName: string }>({ method: 'POST', url, token: t.admin, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
  expect(res.status, `${url}: ${res.msg}`).toBe(200)
  return res.data.fileName
}

/**
 * A valid value of a field from its definition: a default where it has one, a seeded dictionary's
 * item, the newest row of a referenced entity, an uploaded sample file; 'edit' gives another value
 * where one can change freely (text, numbers, dates, yes/no) and SKIP where a change could touch a
 * module's rules.
 */
async function valueOf(e: ResolvedEntity, f: FieldDef, purpose: 'add' | 'edit'): Promise<unknown> {
  const edit = purpose === 'edit'
  const fixed = (v: unknown) => (edit ? SKIP : v)
  switch (f.kind) {
    case 'text':
      return fitting(e, f, (n) => textShapes(f, n))
    case 'longText':
      return fitting(e, f, (n) => textShapes({ max: f.max }, n).map((s) => `Contract ${s}`.slice(0, f.max ?? 100)))
    case 'richText':
      return fitting(e, f, (n) => [`<p>Contract ${n}</p>`])
    case 'email':
      return fitting(e, f, (n) => [`ct${n}@example.com`])
    case 'phone':
      return fitting(e, f, (n) => [`+31 20 ${1_000_000 + n}`])
    case 'password':
      return fixed('Secret12!')
    case 'version':
      return fitting(e, f, (n) => [`1.${n % 1000}.0`])
    case 'letterCode':
      return fitting(e, f, (n) => [letterCode(n, f.max ?? 2)])
    case 'number': {
      const low = f.min ?? 0
      const high = f.max ?? 1_000_000
      const unique = f.unique ? ++serial : 0
      return Math.min(high, Math.max(low, (edit ? 2 : 1) + unique))
    }
    case 'money':
      return Math.min(f.max ?? 1_000_000, Math.max(f.min ?? 0, edit ? 23.45 : 12.34))
    case 'boolean':
      return edit ? !(f.default ?? true) : (f.default ?? true)
    case 'date':
      return edit ? '2026-03-02' : '2026-03-01'
    case 'datetime':
      return edit ? '2026-03-02T08:00:00.000Z' : '2026-03-01T08:00:00.000Z'
    case 'dict':
      return fixed(f.default ?? (await dictValue(f.dict)))
    case 'enum':
      return fixed(f.default ?? f.options[0]!.value)
    case 'timeZone':
      return fixed(f.default ?? 'Europe/Amsterdam')
    case 'geometry':
      return edit ? '{"type":"Point","coordinates":[4.9,52.37],"radius":800}' : '{"type":"Polygon","coordinates":[[[4.8,52.3],[5,52.3],[5,52.4],[4.8,52.3]]]}'
    case 'reference':
      return fixed(await newest(entityByKey(f.entity)))
    case 'referenceMany':
      return fixed([await newest(entityByKey(f.entity))])
    case 'treeParent':
      return fixed(0)
    case 'image':
    case 'file':
      return edit ? SKIP : uploaded(e, f)
  }
}

/** Valid values for a new row (purpose 'add') or a change of one ('edit'), as the API takes them. */
async function valuesFor(e: ResolvedEntity, purpose: 'add' | 'edit'): Promise<Row> {
  const fields = (purpose === 'add' ? e.writable : editableFields(e)).filter((f) => f.name !== stepField(e))
  const out: Row = {}
  const own = await OVERRIDES[e.key]?.values?.(++serial)
  for (const f of fields) {
    // A field no generic value fits takes the override's (a list of names in a pattern of its own).
    const v = await valueOf(e, f, purpose).catch((err: unknown) => {
      if (own && f.name in own) return own[f.name]
      throw err
    })
    if (v !== SKIP) out[f.name] = v
  }
  // In place of generated values only: a modify leaves what it does not generate (references) as it is.
  for (const [name, v] of Object.entries(own ?? {})) if (name in out) out[name] = v
  return out
}

async function addRow(e: ResolvedEntity): Promise<Row> {
  const res = await t.call<Row>({ method: 'POST', url: `/api/${e.path.slice(1)}`, token: t.admin, body: await valuesFor(e, 'add') })
  expect(res.status, `${e.key}: ${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
  return res.data
}

const getRow = async (e: ResolvedEntity, id: unknown, token = t.admin) => t.call<Row>({ url: `/api${e.path}/${id}`, token })
/** A row without the fields background work may write meanwhile (OVERRIDES' `background`). */
const unmoved = (e: ResolvedEntity, row: Record<string, unknown>) => {
  const moving = OVERRIDES[e.key]?.background ?? []
  return Object.fromEntries(Object.entries(row).filter(([k]) => !moving.includes(k)))
}

/** Each value sent reads back as the schema normalizes it (trimmed, upper-case codes, UTC instants). */
function expectStored(e: ResolvedEntity, sent: Row, got: Row) {
  for (const [name, value] of Object.entries(sent)) {
    const f = e.fieldMap.get(name)!
    if (f.kind === 'password' || !(name in got)) continue
    const want = writeSchema(f, 'add').parse(value)
    if (f.kind === 'referenceMany') expect([...(got[name] as number[])].map(Number).sort(), `${e.key}.${name}`).toEqual([...(want as number[])].sort())
    else expect(got[name], `${e.key}.${name}`).toEqual(want)
  }
}

/** A value the field's rules refuse, kind by kind. */
function badValueOf(f: FieldDef): unknown {
  switch (f.kind) {
    case 'text':
    case 'longText':
    case 'richText':
      return f.max ? 'x'.repeat(f.max + 1) : { not: 'text' }
    case 'number':
      return f.max !== undefined ? f.max + 1 : f.min !== undefined ? f.min - 1 : f.int ? 1.5 : 'many'
    case 'money':
      return 1.234
    case 'boolean':
      return 'yes'
    case 'dict':
      return 'no-such-item'
    case 'enum':
      return 'no-such-option'
    case 'date':
      return '2026-02-30'
    case 'datetime':
      return 'soon'
    case 'image':
      return 'upload/x.gif'
    case 'file':
      return '../../etc/passwd'
    case 'version':
      return '1.2'
    case 'letterCode':
      return 'A1'
    case 'email':
      return 'not-mail'
    case 'phone':
      return 'call me'
    case 'password':
      return 'short'
    case 'reference':
    case 'treeParent':
      return 999_999_999
    case 'referenceMany':
      return [999_999_999]
    case 'timeZone':
      return 'Mars/Olympus'
    case 'geometry':
      return '{"type":"MultiPolygon","coordinates":[]}'
  }
}

/** 4xx, naming the field when the answer lists field errors. */
function expectRefused(res: { status: number; msg: string; data: Partial<Refusal> | null }, what: string, field?: string) {
  expect(res.status, `${what}: ${res.status} ${res.msg}`).toBeGreaterThanOrEqual(400)
  expect(res.status, `${what}: ${res.status} ${res.msg}`).toBeLessThan(500)
  if (field && Array.isArray(res.data?.errors)) expect(res.data.errors.map((x: { field: string }) => x.field), what).toContain(field)
}

/** A workbook as a user fills in the template: the columns by label, then rows. */
async function workbook(e: ResolvedEntity, rows: Row[]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Sheet1')
  const columns = e.imported.filter((f) => rows.some((r) => r[f.name] !== undefined))
  ws.addRow(columns.map((f) => f.label.en_US))
  for (const r of rows) ws.addRow(columns.map((f) => r[f.name] ?? null))
  return Buffer.from(await wb.xlsx.writeBuffer())
}

const xlsxUpload = (file: Buffer) => multipart([{ name: 'rows.xlsx', bytes: file }])

/** Polls for a row of an entity that only the product's own doings write (logs). */
async function someRow(e: ResolvedEntity): Promise<Row | undefined> {
  const deadline = Date.now() + 5000
  for (;;) {
    const res = await t.call<Paged<Row>>({ method: 'POST', url: `/api${e.path}/list`, token: t.admin, body: { pageSize: 1 } })
    if (res.data?.rows?.length) return res.data.rows[0]
    if (Date.now() > deadline) return undefined
    await new Promise((r) => setTimeout(r, 20))
  }
}

const entities = allEntities()
let reader = ''
let nobody = ''
/** A user whose role sees "department and below" of a department whose region is one country (`inside`). */
let regional = { token: '' }
let inside = 0
let outside = 0

/**
 * Where a row's country is decided, following its entity's scope declaration: its own country
 * column, or the row it refers to (`via`), or the row that refers to it (`heldBy`), linked to the
 * newest such row where the link is empty. Null for a row owned by a department.
 */
async function countryRoot(e: ResolvedEntity, rowId: number, undo: (() => Promise<unknown>)[]): Promise<{ entity: ResolvedEntity; id: number; column: string } | null> {
  const owner = ownerOf(e)!
  if (owner.country) return { entity: e, id: rowId, column: owner.country }
  if (owner.via) {
    const target = entityByKey((e.fieldMap.get(owner.via) as FieldDef & { kind: 'reference' }).entity)
    const row = await db().selectFrom(e.table).select(owner.via).where(e.idField, '=', rowId).executeTakeFirstOrThrow()
    let ref = row[owner.via] === null ? null : Number(row[owner.via])
    if (ref === null) {
      ref = await newest(target)
      await db().updateTable(e.table).set({ [owner.via]: ref }).where(e.idField, '=', rowId).execute()
      undo.push(() => db().updateTable(e.table).set({ [owner.via!]: null }).where(e.idField, '=', rowId).execute())
    }
    return countryRoot(target, ref, undo)
  }
  if (owner.heldBy) {
    const holder = entityByKey(owner.heldBy.entity)
    const field = owner.heldBy.field
    const row = await db().selectFrom(holder.table).select(holder.idField).where(field, '=', rowId).executeTakeFirst()
    let holderId = row ? Number(row[holder.idField]) : null
    if (holderId === null) {
      holderId = await newest(holder)
      const held = (await db().selectFrom(holder.table).select(field).where(holder.idField, '=', holderId).executeTakeFirstOrThrow())[field]
      await db().updateTable(holder.table).set({ [field]: rowId }).where(holder.idField, '=', holderId).execute()
      undo.push(() => db().updateTable(holder.table).set({ [field]: held }).where(holder.idField, '=', holderId).execute())
    }
    return countryRoot(holder, holderId, undo)
  }
  return null
}

beforeAll(async () => {
  // Every right the entities' routes ask for is a button some role can hold.
  const rights = entities.flatMap((e) => e.operations.map((op) => perm(e, op)))
  const held = new Set((await db().selectFrom('sysMenu').select('perms').execute()).map((r) => r.perms))
  for (const perms of [...new Set(rights)].filter((p) => !held.has(p))) {
    const res = await t.call({ method: 'POST', url: '/api/system/menu', token: t.admin, body: { menuName: perms, parentId: 0, menuType: 'F', orderNum: 0, perms } })
    expect(res.status, res.msg).toBe(200)
  }
  // One may list and read every entity and nothing more; the other may do nothing at all.
  const readRights = entities.flatMap((e) => [perm(e, 'list'), perm(e, 'get')])
  reader = (await limitedUser(t, { userName: 'contractreader', perms: readRights, dataScope: '1' })).token
  nobody = (await limitedUser(t, { userName: 'contractnobody', perms: [], dataScope: '1' })).token
  // The data scope's user: every right of every entity, over one country through her department.
  const countries = await db().selectFrom('sysCountry').select('countryId').orderBy('countryId').limit(2).execute()
  inside = Number(countries[0]!.countryId)
  outside = Number(countries[1]!.countryId)
  const dept = await t.call({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { deptName: 'Contract region', parentId: 0, orderNum: 9, countryIds: [inside] } })
  expect(dept.status, dept.msg).toBe(200)
  const allRights = entities.flatMap((e) => e.operations.map((op) => perm(e, op)))
  const user = await limitedUser(t, { userName: 'contractregional', perms: allRights, dataScope: '4', dept: 'Contract region' })
  regional = { token: user.token }
})

describe.each(entities.map((e) => [e.key, e] as const))('%s', (_key, e) => {
  const url = `/api${e.path}`
  /** The row the operations are tried on: one this suite added, else one the product wrote. */
  let subject: Row | undefined
  const id = () => subject?.[e.idField]

  it('lists, pages and refuses an unknown filter', async () => {
    const res = await t.call<Paged<Row>>({ method: 'POST', url: `${url}/list`, token: t.admin, body: {} })
    expect(res.status, res.msg).toBe(200)
    expect(Array.isArray(res.data.rows)).toBe(true)
    expect(res.data.total).toBeGreaterThanOrEqual(res.data.rows.length)
    if (!e.treeParent) {
      const page = await t.call<Paged<Row>>({ method: 'POST', url: `${url}/list`, token: t.admin, body: { pageNum: 1, pageSize: 1 } })
      expect(page.data.rows.length).toBeLessThanOrEqual(1)
    }
    expectRefused(await t.call({ method: 'POST', url: `${url}/list`, token: t.admin, body: { noSuchFilter: 1 } }), 'unknown filter')
  })

  it.runIf(has(e, 'add'))('adds a row of generated values and reads it back', async () => {
    // Values first: making them may free a unique value by deleting a row (the message configuration's events).
    const values = await valuesFor(e, 'add')
    const before = await count(e)
    const res = await t.call<Row>({ method: 'POST', url, token: t.admin, body: values })
    expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
    expect(await count(e)).toBe(before + 1)
    const got = await getRow(e, res.data[e.idField])
    expect(got.status, got.msg).toBe(200)
    expectStored(e, values, got.data)
    subject = got.data
  })

  it('gets one row by id, and 404 for an id that names none', async () => {
    if (!subject) {
      await OVERRIDES[e.key]?.row?.()
      subject = await someRow(e)
    }
    expect(subject, `${e.key}: no row to try the operations on; give OVERRIDES a row maker`).toBeDefined()
    if (!has(e, 'get')) return
    const got = await getRow(e, id())
    expect(got.status, got.msg).toBe(200)
    expect(got.data[e.idField]).toEqual(id())
    // Each link comes with its rows' labels, in the same order: a reader names them without a capped picker list.
    for (const f of e.fields) {
      if (f.kind !== 'referenceMany') continue
      const target = entityByKey(f.entity)
      const ids = got.data[f.name] as number[]
      const labels = await Promise.all(ids.map(async (linked) => (await db().selectFrom(target.table).select(target.labelField).where(target.idField, '=', linked).executeTakeFirst())?.[target.labelField] ?? null))
      expect(got.data[`${f.name}Labels`], `${e.key}.${f.name}Labels`).toEqual(labels.map((l) => (l === null ? null : String(l))))
    }
    expect((await getRow(e, 999_999_999)).status).toBe(404)
  })

  it.runIf(has(e, 'edit'))('modifies a row with other generated values', async () => {
    const values = await valuesFor(e, 'edit')
    const res = await t.call({ method: 'PUT', url, token: t.admin, body: { ...values, [e.idField]: id() } })
    expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
    const got = await getRow(e, id())
    expectStored(e, values, got.data)
    subject = got.data
  })

  it.runIf(has(e, 'export'))('exports every column it lists in the caller language, with the row in it', async () => {
    const res = await t.call({ method: 'POST', url: `${url}/export`, token: t.admin, lang: 'zh_CN', body: {} })
    expect(res.status, res.msg).toBe(200)
    expect(String(res.headers['content-type'])).toContain('spreadsheetml')
    const sheet = await readWorkbook(res.raw)
    expect(sheet.header).toEqual(e.exported.map((f) => labelWithUnit(f).zh_CN))
    const idColumn = sheet.header.indexOf(e.fieldMap.get(e.idField)!.label.zh_CN)
    if (idColumn >= 0) expect(sheet.rows.map((r) => Number(r[idColumn]))).toContain(Number(id()))
  })

  it.runIf(has(e, 'import'))('offers the template and imports a row of generated values', async () => {
    const template = await t.call({ url: `${url}/importTemplate`, token: t.admin })
    expect(template.status, template.msg).toBe(200)
    expect((await readWorkbook(template.raw)).header).toEqual(e.imported.map((f) => labelWithUnit(f).en_US))
    const before = await count(e)
    const res = await t.call({ method: 'POST', url: `${url}/import`, token: t.admin, ...xlsxUpload(await workbook(e, [await valuesFor(e, 'add')])) })
    expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
    expect(res.data).toEqual({ inserted: 1, updated: 0 })
    expect(await count(e)).toBe(before + 1)
  })

  it('answers bad input with 4xx and changes nothing', async () => {
    const rowsNow = await rowCounter(e)
    const rows = await rowsNow()
    const stored = has(e, 'get') ? unmoved(e, (await getRow(e, id())).data) : undefined
    const step = stepField(e)
    // One field wrong at a time, the rest valid: each field's own rule answers. The requests are
    // independent, so they go at once.
    if (has(e, 'add')) {
      const good = await valuesFor(e, 'add')
      const fields = e.writable.filter((w) => w.name !== step)
      const answers = await Promise.all(fields.map((f) => t.call<Refusal | null>({ method: 'POST', url, token: t.admin, body: { ...good, [f.name]: badValueOf(f) } })))
      fields.forEach((f, i) => expectRefused(answers[i]!, `add with a bad ${f.name}`, f.name))
      expectRefused(await t.call({ method: 'POST', url, token: t.admin, body: [] }), 'add with no object')
    }
    if (has(e, 'edit')) {
      const fields = editableFields(e).filter((w) => w.name !== step)
      const answers = await Promise.all(fields.map((f) => t.call<Refusal | null>({ method: 'PUT', url, token: t.admin, body: { [e.idField]: id(), [f.name]: badValueOf(f) } })))
      fields.forEach((f, i) => expectRefused(answers[i]!, `modify with a bad ${f.name}`, f.name))
      expectRefused(await t.call({ method: 'PUT', url, token: t.admin, body: { [e.idField]: 999_999_999 } }), 'modify of no row')
    }
    if (has(e, 'import')) {
      const good = await valuesFor(e, 'add')
      const bad = e.imported.find((f) => ['string', 'number'].includes(typeof badValueOf(f)))
      if (bad) {
        const res = await t.call<Refusal | null>({ method: 'POST', url: `${url}/import`, token: t.admin, ...xlsxUpload(await workbook(e, [good, { ...good, [bad.name]: badValueOf(bad) }])) })
        expectRefused(res, `import with a bad ${bad.name}`)
      }
    }
    if (has(e, 'remove')) expectRefused(await t.call({ method: 'DELETE', url: `${url}/999999999`, token: t.admin }), 'delete of no row')
    expectRefused(await t.call({ url: `${url}/not-a-number`, token: t.admin }), 'get by a bad id')
    expect(await rowsNow()).toBe(rows)
    if (stored) expect(unmoved(e, (await getRow(e, id())).data)).toEqual(stored)
  })

  it('refuses a user whose role lacks the right (403) and changes nothing', async () => {
    const rowsNow = await rowCounter(e)
    const rows = await rowsNow()
    const stored = has(e, 'get') ? unmoved(e, (await getRow(e, id())).data) : undefined
    // Reading is the reader's right; nobody has none. Writing is no one's but the admin's here:
    // refused with valid values, not for bad ones. The calls are independent, so they go at once.
    const calls: [what: string, status: number, call: Promise<{ status: number; msg: string }>][] = [
      ['list by the reader', 200, t.call({ method: 'POST', url: `${url}/list`, token: reader, body: {} })],
      ['list', 403, t.call({ method: 'POST', url: `${url}/list`, token: nobody, body: {} })],
    ]
    if (has(e, 'get')) {
      calls.push(['get by the reader', 200, t.call({ url: `${url}/${id()}`, token: reader })])
      calls.push(['get', 403, t.call({ url: `${url}/${id()}`, token: nobody })])
    }
    if (has(e, 'add')) calls.push(['add', 403, t.call({ method: 'POST', url, token: reader, body: await valuesFor(e, 'add') })])
    if (has(e, 'edit')) calls.push(['modify', 403, t.call({ method: 'PUT', url, token: reader, body: { ...(await valuesFor(e, 'edit')), [e.idField]: id() } })])
    if (has(e, 'remove')) calls.push(['delete', 403, t.call({ method: 'DELETE', url: `${url}/${id()}`, token: reader })])
    if (has(e, 'export')) calls.push(['export', 403, t.call({ method: 'POST', url: `${url}/export`, token: reader, body: {} })])
    if (has(e, 'import')) {
      calls.push(['import template', 403, t.call({ url: `${url}/importTemplate`, token: reader })])
      calls.push(['import', 403, t.call({ method: 'POST', url: `${url}/import`, token: reader, ...xlsxUpload(await workbook(e, [await valuesFor(e, 'add')])) })])
    }
    for (const [what, status, call] of calls) {
      const res = await call
      expect(res.status, `${what}: ${res.msg}`).toBe(status)
    }
    expect(await rowsNow()).toBe(rows)
    if (stored) expect(unmoved(e, (await getRow(e, id())).data)).toEqual(stored)
  })

  it.runIf(ownerOf(e) !== null)('keeps to the data scope: another country’s row is not listed, read, picked, counted, exported, changed or deleted', async () => {
    const undo: (() => Promise<unknown>)[] = []
    const root = await countryRoot(e, Number(id()), undo)
    // Owned by a department (system users, departments): their own tests hold them (users, departments).
    if (!root) return
    const was = (await db().selectFrom(root.entity.table).select(root.column).where(root.entity.idField, '=', root.id).executeTakeFirstOrThrow())[root.column]
    const setCountry = (countryId: number) => db().updateTable(root.entity.table).set({ [root.column]: countryId }).where(root.entity.idField, '=', root.id).execute()
    const seen = async () => {
      const list = await t.call<Paged<Row>>({ method: 'POST', url: `${url}/list`, token: regional.token, body: { pageSize: 500 } })
      expect(list.status, list.msg).toBe(200)
      const listed = list.data.rows.some((r: Row) => r[e.idField] === id())
      const options = await t.call<{ value: number }[]>({ url: `${url}/options`, token: regional.token })
      expect(options.status, options.msg).toBe(200)
      const picked = options.data.some((o: { value: number }) => o.value === id())
      let counted = list.data.total
      if (e.transitions && e.fieldMap.get(e.transitions.field)?.search) {
        const counts = await t.call<Record<string, number>>({ method: 'POST', url: `${url}/counts`, token: regional.token, body: {} })
        expect(counts.status, counts.msg).toBe(200)
        counted = Object.values(counts.data).reduce((a, b) => a + b, 0)
      }
      let exported = list.data.total
      if (has(e, 'export')) {
        const file = await t.call({ method: 'POST', url: `${url}/export`, token: regional.token, body: {} })
        expect(file.status, file.msg).toBe(200)
        exported = (await readWorkbook(file.raw)).rows.length
      }
      return { listed, picked, total: list.data.total, counted, exported, got: has(e, 'get') ? (await getRow(e, id(), regional.token)).status : 404 }
    }
    try {
      await setCountry(inside)
      const shown = await seen()
      expect(shown).toMatchObject({ listed: true, picked: true, got: has(e, 'get') ? 200 : 404 })
      expect([shown.counted, shown.exported]).toEqual([shown.total, shown.total])

      await setCountry(outside)
      const hidden = await seen()
      // Other rows of the same owner (a device's other SIM cards) go with it.
      expect(hidden).toMatchObject({ listed: false, picked: false, got: 404 })
      expect(hidden.total).toBeLessThan(shown.total)
      expect([hidden.counted, hidden.exported]).toEqual([hidden.total, hidden.total])
      const stored = has(e, 'get') ? unmoved(e, (await getRow(e, id())).data) : undefined
      const rows = await (await rowCounter(e))()
      if (has(e, 'edit')) {
        const res = await t.call({ method: 'PUT', url, token: regional.token, body: { ...(await valuesFor(e, 'edit')), [e.idField]: id() } })
        expect(res.status, `modify: ${res.msg}`).toBe(404)
      }
      if (has(e, 'remove')) {
        const res = await t.call({ method: 'DELETE', url: `${url}/${id()}`, token: regional.token })
        expect(res.status, `delete: ${res.msg}`).toBe(404)
      }
      expect(await (await rowCounter(e))()).toBe(rows)
      if (stored) expect(unmoved(e, (await getRow(e, id())).data)).toEqual(stored)
    } finally {
      await db().updateTable(root.entity.table).set({ [root.column]: was }).where(root.entity.idField, '=', root.id).execute()
      for (const step of undo.reverse()) await step()
    }
  })

  // What a row's state forbids (the definition's `states`: a finished order, a sent message, an order
  // with numbers) is refused with 409 naming the row, and changes nothing; a delete of it with a row
  // that may go deletes neither. The row is put in each rule's state as the product would put it (a
  // step, a generation), here straight in its table, and put back after.
  it.runIf(!!e.states?.length && (has(e, 'edit') || has(e, 'remove')))('refuses what each state of the row forbids (409) and changes nothing', async () => {
    const rowsNow = await rowCounter(e)
    for (const rule of e.states ?? []) {
      const { field } = rule.when
      const what = `${e.key} with ${JSON.stringify(rule.when)}`
      const kept = await db().selectFrom(e.table).select(field).where(e.idField, '=', id()).executeTakeFirstOrThrow()
      // The last state named: the one background work (a scheduler, a delivery) leaves alone.
      const value = 'is' in rule.when ? rule.when.is.at(-1)! : rule.when.above + 1
      await db().updateTable(e.table).set({ [field]: value }).where(e.idField, '=', id()).execute()
      try {
        const rows = await rowsNow()
        const stored = unmoved(e, (await getRow(e, id())).data)
        const name = String(stored[e.labelField] ?? id())
        const allowed = stateRules(e, stored)
        if (rule.edit && has(e, 'edit')) {
          const values = await valuesFor(e, 'edit')
          const locked = Object.keys(values).find((f) => !stateAllowsEdit(allowed, f) && String(values[f]) !== String(stored[f]))
          expect(locked, `${what}: no generated value for a field it locks`).toBeDefined()
          const res = await t.call({ method: 'PUT', url, token: t.admin, body: { [e.idField]: id(), [locked!]: values[locked!] } })
          expect(res.status, `${what}: modify of ${locked}: ${res.msg}`).toBe(409)
          expect(res.msg, what).toContain(`"${name}"`)
        }
        if (rule.delete === false && has(e, 'remove')) {
          const res = await t.call({ method: 'DELETE', url: `${url}/${id()}`, token: t.admin })
          expect(res.status, `${what}: delete: ${res.msg}`).toBe(409)
          expect(res.msg, what).toContain(`"${name}"`)
          const other = has(e, 'add') ? await addRow(e) : undefined
          if (other && stateRules(e, other).deletable) {
            expect((await t.call({ method: 'DELETE', url: `${url}/${other[e.idField]},${id()}`, token: t.admin })).status, `${what}: delete with another row`).toBe(409)
            expect((await getRow(e, other[e.idField])).status).toBe(200)
            expect((await t.call({ method: 'DELETE', url: `${url}/${other[e.idField]}`, token: t.admin })).status).toBe(200)
          }
        }
        expect(await rowsNow()).toBe(rows)
        expect(unmoved(e, (await getRow(e, id())).data)).toEqual(stored)
      } finally {
        await db().updateTable(e.table).set({ [field]: kept[field] }).where(e.idField, '=', id()).execute()
      }
    }
  })

  it.runIf(has(e, 'remove'))('deletes the row', async () => {
    const rowsNow = await rowCounter(e)
    const rows = await rowsNow()
    const res = await t.call({ method: 'DELETE', url: `${url}/${id()}`, token: t.admin })
    expect(res.status, res.msg).toBe(200)
    expect(await rowsNow()).toBe(rows - 1)
    if (has(e, 'get')) expect((await getRow(e, id())).status).toBe(404)
  })
})
