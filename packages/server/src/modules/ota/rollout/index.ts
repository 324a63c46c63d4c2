import { OTA_PARTS, type OtaPart } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { type Db, dynamicDb } from '../../../db/database'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { idParam } from '../../../platform/crud/schemas'
import { sameValue } from '../../../platform/crud/states'
import type { TransitionArgs } from '../../../platform/crud/workflow'
import { conflict, forbidden } from '../../../platform/errors'
import { languageOf } from '../../../platform/http'
import { envelope, fileAnswer } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { openEventStream } from '../../../platform/sse'
import { OtaRollout, type OtaRolloutOptions } from './engine'
import { holdReasonIn, skipHeldDevice } from './outcomes'
import { updateAudioStatus, updateCounters } from './waves'
import { createOtaEvents, type OtaEventBus } from './events'
import { overviewOf, overviewSchema } from './overview'
import { bothLanguages } from './reasons'
import { ACTIVE, campaignRecord, deviceRecord, devicesById, isoOrNull, num, RETRYABLE, type Row, upgradeEntityOf, WAITING } from './tables'
import { recordTransitions } from '../../../platform/crud/history'
import { resolveTargets } from './targets'
import { blockServerOf } from '../transfer'
import { approvedImageOf, type CampaignImageRef, imageOf } from '../transfer/offer'

export type { OtaRolloutOptions }

const rollouts = new WeakMap<Services, OtaRollout>()

/** The app's rollout (tests move its clock and shorten its tick). */
export function otaRolloutOf(services: Services): OtaRollout {
  const rollout = rollouts.get(services)
  if (!rollout) throw new Error('the OTA rollout is not registered on this app')
  return rollout
}

/**
 * The rollout of the four parts' upgrade campaigns (issue 18): the rules of each part's upgrade
 * entity (targets resolved at submit, approval by a second person, start, pause, resume, cancel,
 * retry the failed), the campaign's live overview and event stream, and the engine that notifies
 * devices in waves, follows their reports and stops the campaign when it goes wrong.
 */
export function registerOtaRollout(app: FastifyInstance, services: Services) {
  const events = createOtaEvents(services.redis, `${services.config.redisPrefix}ota:events`, app.log)
  const rollout = new OtaRollout(app, services, events)
  rollouts.set(services, rollout)
  for (const part of OTA_PARTS) registerPart(app, services, rollout, events, part)
  // An image the block server or its link refuses (not the approved bytes) fails that upgrade here.
  const blocks = blockServerOf(services)
  if (blocks) blocks.onRefused = (refused) => rollout.refuseImage(refused)
  rollout.start()
  // Closed before the gateway it sends through, and before the database.
  app.iot.attach({
    close: async () => {
      await rollout.close()
      await events.close()
    },
  })
}

/** The whole campaign row: the engine's row lacks the storage columns (part, payload of other parts, baseline). */
const campaignRow = async (tx: Db, campaignId: number): Promise<Row> =>
  (await tx.selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).executeTakeFirstOrThrow()) as Row

/**
 * The image a campaign deploys as stored now, its firmware's or audio's row locked first on
 * PostgreSQL (FOR SHARE): a modify of that row (which locks it FOR UPDATE, catalogue) either
 * committed before, and this reads its result, or waits and then finds the campaign submitted.
 */
async function lockedImageOf(services: Services, tx: Db, c: Row) {
  if (services.dialect === 'postgres') {
    if (c.payload === 'audio') {
      if (c.audioId != null) await tx.selectFrom('iotAudio').select('audioId').where('audioId', '=', num(c.audioId)).forShare().execute()
    } else if (c.firmwareId != null) await tx.selectFrom('otaFirmware').select('firmwareId').where('firmwareId', '=', num(c.firmwareId)).forShare().execute()
  }
  return imageOf(tx, c as CampaignImageRef)
}

/** What a step back to draft clears: the targets, the approval and the image it bound; the next revision starts. */
async function backToDraft(tx: Db, c: Row, after: Row) {
  const campaignId = num(c.campaignId)
  await tx.deleteFrom('otaCampaignDevice').where('campaignId', '=', campaignId).execute()
  const cleared = { totalDevices: 0, approvedBy: '', approvedAt: null, imageSha256: '', imageSize: null, revision: num(c.revision || 1) + 1 }
  await tx.updateTable('otaCampaign').set(cleared).where('campaignId', '=', campaignId).execute()
  Object.assign(after, cleared)
}

/** The most ids of a device or country list a modify's history names; the rest are counted. */
const LISTED_IDS = 100

/** A list field's change for the history: the ids added and removed (at most LISTED_IDS of each, and how many in all). */
function listChange(before: number[], after: number[]) {
  const was = new Set(before)
  const is = new Set(after)
  const added = [...is].filter((id) => !was.has(id))
  const removed = [...was].filter((id) => !is.has(id))
  return {
    added: added.slice(0, LISTED_IDS),
    removed: removed.slice(0, LISTED_IDS),
    ...(added.length > LISTED_IDS || removed.length > LISTED_IDS ? { addedCount: added.length, removedCount: removed.length } : {}),
  }
}

function registerPart(app: FastifyInstance, services: Services, rollout: OtaRollout, events: OtaEventBus, part: OtaPart) {
  const upgrade = upgradeEntityOf(part)
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = [upgrade.label.en_US]
  // A moment after an action, when its transaction has committed (actions have no after-commit hook):
  // a tick started inside it would not see the change. The once-a-second tick finds it anyway.
  const wakeAfterCommit = () => setTimeout(() => rollout.wake(), 50).unref()

  const afterStep = async ({ tx: t, auth, step, row, input, context, after }: TransitionArgs & { after: Row }) => {
    const tx = t
    const campaignId = num(row.campaignId)
    const now = rollout.now()
    const stamp = now.toISOString()
    const c = await campaignRow(tx, campaignId)
    const who = { userId: auth.userId, userName: auth.userName }
    switch (step.name) {
      case 'submit': {
        if (await services.configValues.bool('ota.approvalRequired', true)) break
        // No second person required: it is scheduled at once, and the history says it went by itself.
        await tx.updateTable('otaCampaign').set({ status: 'scheduled' }).where('campaignId', '=', campaignId).where('status', '=', 'awaitingApproval').execute()
        await recordTransitions(tx, [campaignRecord(c, 'approve', 'awaitingApproval', 'scheduled', { automatic: true }, now)])
        after.status = 'scheduled'
        break
      }
      case 'approve':
        await tx.updateTable('otaCampaign').set({ approvedBy: auth.userName, approvedAt: stamp }).where('campaignId', '=', campaignId).execute()
        Object.assign(after, { approvedBy: auth.userName, approvedAt: stamp })
        break
      case 'reject':
      case 'revise':
        // Back to a draft, a new revision: its targets are resolved and its image bound again at the next submit, which needs approving again.
        await backToDraft(tx, c, after)
        break
      case 'start':
        await rollout.onStarted(tx, c, now)
        break
      case 'pause': {
        const given = String(input.reason ?? '')
          .replace(/\s+/g, ' ')
          .trim()
        const pauseReason = given || bothLanguages('ota.rollout.pause.manual', () => ({ user: auth.userName }))
        await tx.updateTable('otaCampaign').set({ pauseReason }).where('campaignId', '=', campaignId).execute()
        after.pauseReason = pauseReason
        break
      }
      case 'resume':
        // What paused it is judged afresh from now: the wave goes on.
        await tx.updateTable('otaCampaign').set({ pauseReason: '', resumedAt: stamp }).where('campaignId', '=', campaignId).execute()
        after.pauseReason = ''
        break
      case 'cancel': {
        const forced = input.forced === true
        const states = forced ? [...WAITING, ...ACTIVE] : WAITING
        const ending = (await tx
          .selectFrom('otaCampaignDevice')
          .select(['upgradeId', 'deviceId', 'wave', 'attempt', 'state'])
          .where('campaignId', '=', campaignId)
          .where('state', 'in', states)
          .execute()) as Row[]
        for (let i = 0; i < ending.length; i += 500) {
          await tx
            .updateTable('otaCampaignDevice')
            .set({ state: 'cancelled', finishedAt: stamp, updatedAt: stamp })
            .where(
              'upgradeId',
              'in',
              ending.slice(i, i + 500).map((r) => num(r.upgradeId)),
            )
            .where('state', 'in', states)
            .execute()
        }
        await recordTransitions(
          tx,
          ending.map((r) => deviceRecord(c, r, 'cancel', String(r.state), 'cancelled', { forced }, now, who)),
        )
        await tx.updateTable('otaCampaign').set({ finishedAt: stamp }).where('campaignId', '=', campaignId).execute()
        await updateCounters(tx, campaignId)
        if (c.payload === 'audio') await updateAudioStatus(tx, num(c.audioId))
        if (forced) {
          const active = ending.filter((r) => ACTIVE.includes(r.state as never))
          const devices = await devicesById(tx, active.map((r) => num(r.deviceId)))
          // Sent once the cancel has committed (afterCommit below): the device's "aborted" then finds its row cancelled.
          context.aborts = active.flatMap((r) => {
            const device = devices.get(num(r.deviceId))
            return device ? [{ device, upgradeId: num(r.upgradeId), attempt: num(r.attempt) }] : []
          })
        }
        break
      }
    }
    rollout.markLive(part, campaignId)
  }

  // Once the step has committed: a tick then sees it, and devices are told to abort only a cancel that happened.
  const afterCommit = async ({ context }: { context: Row }) => {
    const aborts = context.aborts as Parameters<OtaRollout['sendAborts']>[0] | undefined
    if (aborts?.length) await rollout.sendAborts(aborts, 'cancelled')
    rollout.wake()
  }

  /** Kept with a step back to draft: the revision it ends, and the approval and image it clears. */
  const endsRevision = async ({ tx, row, input }: TransitionArgs) => {
    const c = await campaignRow(tx, num(row.campaignId))
    Object.assign(input, {
      revision: num(c.revision || 1),
      ...(c.approvedBy ? { approvedBy: String(c.approvedBy), approvedAt: isoOrNull(c.approvedAt) } : {}),
      ...(c.imageSha256 ? { imageSha256: String(c.imageSha256) } : {}),
    })
  }

  registerEntityRoutes(app, services, upgrade, {
    // A campaign under way is not deleted, nor one past draft changed: the definition's state rules.
    beforeDelete: async ({ tx, rows }) => {
      await tx
        .deleteFrom('otaCampaignDevice')
        .where(
          'campaignId',
          'in',
          rows.map((r) => num(r.campaignId)),
        )
        .execute()
    },
    // A draft's every change goes into its history, with who made it: a revision's history then says what changed since the last.
    beforeUpdate: async ({ tx, before, values, context }) => {
      const changes: Row = {}
      for (const [name, value] of Object.entries(values)) {
        const f = upgrade.fieldMap.get(name)
        if (!f) continue
        if (f.kind === 'referenceMany') {
          const linked = (await dynamicDb(tx).selectFrom(f.through.table).select(f.through.to).where(f.through.from, '=', num(before.campaignId)).execute()).map((r) => num(r[f.through.to]))
          if (!sameValue(f, value, linked)) changes[name] = listChange(linked, (value as unknown[]).map(Number))
        } else if (!sameValue(f, value, before[name])) changes[name] = { from: before[name] ?? null, to: value ?? null }
      }
      context.changes = changes
    },
    afterUpdate: async ({ tx, auth, before, context }) => {
      const changes = context.changes as Row | undefined
      if (!changes || !Object.keys(changes).length) return
      const status = String(before.status)
      const c = { campaignId: before.campaignId, partKind: part }
      await recordTransitions(tx, [campaignRecord(c, 'modify', status, status, { revision: num(before.revision || 1), ...changes }, rollout.now(), { userId: auth.userId, userName: auth.userName })])
    },
    guards: {
      submit: [
        async ({ tx, row, input }) => {
          const c = await campaignRow(tx, num(row.campaignId))
          // The image this revision binds: its file's digests as uploaded. The approver approves them,
          // offers carry them, and no other bytes are served for the campaign (docs/ota.md › Approval binds).
          // Read (and its row locked) before the targets, whose version is the image's.
          const image = await lockedImageOf(services, tx, c)
          if (!image) throw conflict('ota.rollout.noImage')
          const resolved = await resolveTargets(tx, part, c, rollout.now())
          await tx.updateTable('otaCampaign').set({ imageSha256: image.sha256, imageSize: image.size }).where('campaignId', '=', num(c.campaignId)).execute()
          // Kept with the submit step in the history: the revision and its image, how many devices it took, and how many it left out and why.
          Object.assign(input, { revision: num(c.revision || 1), imageSha256: image.sha256, targets: resolved.total, waves: resolved.waves, leftOut: resolved.leftOut })
        },
      ],
      approve: [
        async ({ tx, auth, row, input }) => {
          const c = await campaignRow(tx, num(row.campaignId))
          if (c.createBy === auth.userName) throw forbidden('ota.rollout.selfApproval', { user: auth.userName })
          // What is approved is the image as submitted: still it, or the campaign goes back to its author.
          const submitted = approvedImageOf(c)
          const image = await lockedImageOf(services, tx, c)
          if (!submitted || !image || image.sha256 !== submitted.sha256 || image.size !== submitted.size) {
            throw conflict('ota.rollout.imageChanged', { submitted: submitted?.sha256 ?? '—' })
          }
          Object.assign(input, { revision: num(c.revision || 1), imageSha256: submitted.sha256 })
        },
      ],
      reject: [endsRevision],
      revise: [endsRevision],
    },
    afterTransition: [afterStep],
    afterTransitionCommit: [afterCommit],
    actions: {
      retryFailed: async ({ tx: t, auth, rows }) => {
        const tx = t
        const campaignId = num(rows[0]!.campaignId)
        const now = rollout.now()
        const stamp = now.toISOString()
        const c = await campaignRow(tx, campaignId)
        const requeued = await tx
          .updateTable('otaCampaignDevice')
          .set({ state: 'queued', nextAttemptAt: stamp, finishedAt: null, updatedAt: stamp })
          .where('campaignId', '=', campaignId)
          .where('state', 'in', RETRYABLE)
          .returning(['upgradeId', 'deviceId', 'wave', 'attempt', 'code'])
          .execute()
        const who = { userId: auth.userId, userName: auth.userName }
        const records = requeued.map((r: Row) => deviceRecord(c, r, 'retryFailed', 'failed', 'queued', { attempt: num(r.attempt), code: String(r.code ?? '') }, now, who))
        const reopen = c.status === 'finished' && requeued.length > 0
        if (reopen) {
          await tx.updateTable('otaCampaign').set({ status: 'running', finishedAt: null }).where('campaignId', '=', campaignId).where('status', '=', 'finished').execute()
          records.push(campaignRecord(c, 'retryFailed', 'finished', 'running', { queued: requeued.length }, now, who))
        }
        await tx.updateTable('otaCampaign').set({ resumedAt: stamp }).where('campaignId', '=', campaignId).execute()
        await recordTransitions(tx, records)
        await updateCounters(tx, campaignId)
        if (reopen && c.payload === 'audio') await updateAudioStatus(tx, num(c.audioId))
        rollout.markLive(part, campaignId)
        wakeAfterCommit()
        return { queued: requeued.length }
      },
      // The held devices end now as skipped (their hold's reason kept): the waves and the campaign finish without them.
      skipHeld: async ({ tx: t, auth, rows }) => {
        const tx = t
        const campaignId = num(rows[0]!.campaignId)
        const now = rollout.now()
        const stamp = now.toISOString()
        const c = await campaignRow(tx, campaignId)
        const held = (await tx
          .selectFrom('otaCampaignDevice')
          .select(['upgradeId', 'deviceId', 'wave', 'attempt', 'state', 'code', 'heldSince'])
          .where('campaignId', '=', campaignId)
          .where((eb) => eb.or([eb('state', '=', 'held'), eb.and([eb('state', '=', 'queued'), eb('heldSince', 'is not', null)])]))
          .execute()) as Row[]
        const who = { userId: auth.userId, userName: auth.userName }
        const records = []
        for (const r of held) {
          const why = String(r.code || 'simDataLow')
          const message = bothLanguages('ota.rollout.skipped.byHand', (lang) => ({ user: auth.userName, why: holdReasonIn(lang, why) }))
          if (await skipHeldDevice(tx, r, why, message, stamp)) records.push(deviceRecord(c, r, 'skipHeld', String(r.state), 'skipped', { why, heldSince: isoOrNull(r.heldSince) }, now, who))
        }
        await recordTransitions(tx, records)
        await updateCounters(tx, campaignId)
        rollout.markLive(part, campaignId)
        wakeAfterCommit()
        return { skipped: records.length }
      },
    },
  })

  api.get(
    `${upgrade.path}/:id/overview`,
    {
      config: { permission: `${upgrade.permission}:query` },
      schema: {
        tags,
        summary: "A campaign's live view: devices per state, each wave's progress, the states over time, the newest failed devices",
        params: idParam,
        response: { 200: envelope(overviewSchema) },
      },
    },
    async (req) => overviewOf(services.db, part, req.params.id, languageOf(req), rollout.now()),
  )

  api.get(
    `${upgrade.path}/stream`,
    {
      config: { permission: `${upgrade.permission}:list` },
      schema: {
        tags,
        summary: "Server-sent events 'ota' of this part's campaigns (campaign counts and device states, a few per second at most); with campaignId, that campaign's only",
        querystring: z.object({ campaignId: z.coerce.number().int().positive().optional() }),
        response: { 200: fileAnswer('text/event-stream', "Server-sent events 'ota' (shared OtaEvent)") },
      },
    },
    async (req, reply) => {
      const { campaignId } = req.query
      const stream = openEventStream(req, reply)
      const stop = events.subscribe((batch) => {
        if (batch.part !== part) return
        for (const event of batch.events) if (campaignId === undefined || event.campaignId === campaignId) stream.send('ota', event)
      })
      stream.onClose(stop)
    },
  )
}
