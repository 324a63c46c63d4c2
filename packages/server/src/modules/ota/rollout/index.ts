import { OTA_PARTS, type OtaPart } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { idParam } from '../../../platform/crud/schemas'
import type { TransitionArgs } from '../../../platform/crud/workflow'
import { conflict, forbidden } from '../../../platform/errors'
import { languageOf } from '../../../platform/http'
import { envelope, fileAnswer } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { openEventStream } from '../../../platform/sse'
import { campaignRecord, deviceRecord, OtaRollout, type OtaRolloutOptions, updateAudioStatus, updateCounters } from './engine'
import { createOtaEvents, type OtaEventBus } from './events'
import { overviewOf, overviewSchema } from './overview'
import { bothLanguages } from './reasons'
import { ACTIVE, anyDb, type AnyDb, devicesById, num, RETRYABLE, type Row, upgradeEntityOf, WAITING, writeHistory } from './tables'
import { resolveTargets } from './targets'

export type { OtaRolloutOptions }

const rollouts = new WeakMap<Services, OtaRollout>()

/** The app's rollout (tests move its clock and shorten its tick). */
export function otaRolloutOf(services: Services): OtaRollout {
  const rollout = rollouts.get(services)
  if (!rollout) throw new Error('the OTA rollout is not registered on this app')
  return rollout
}

/** Campaigns in these states are being rolled out or about to be: deleting one would strand its devices. */
const UNDELETABLE = ['awaitingApproval', 'scheduled', 'running', 'paused']

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
const campaignRow = async (tx: AnyDb, campaignId: number): Promise<Row> =>
  (await tx.selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).executeTakeFirstOrThrow()) as Row

function registerPart(app: FastifyInstance, services: Services, rollout: OtaRollout, events: OtaEventBus, part: OtaPart) {
  const upgrade = upgradeEntityOf(part)
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = [upgrade.label.en_US]
  // A moment after an action, when its transaction has committed (actions have no after-commit hook):
  // a tick started inside it would not see the change. The once-a-second tick finds it anyway.
  const wakeAfterCommit = () => setTimeout(() => rollout.wake(), 50).unref()

  const afterStep = async ({ tx: t, auth, step, row, input, context, after }: TransitionArgs & { after: Row }) => {
    const tx = anyDb(t)
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
        await writeHistory(tx, [campaignRecord(c, 'approve', 'awaitingApproval', 'scheduled', { automatic: true }, now)])
        after.status = 'scheduled'
        break
      }
      case 'approve':
        await tx.updateTable('otaCampaign').set({ approvedBy: auth.userName }).where('campaignId', '=', campaignId).execute()
        after.approvedBy = auth.userName
        break
      case 'reject':
        // Back to a draft: its targets are resolved again at the next submit.
        await tx.deleteFrom('otaCampaignDevice').where('campaignId', '=', campaignId).execute()
        await tx.updateTable('otaCampaign').set({ totalDevices: 0 }).where('campaignId', '=', campaignId).execute()
        after.totalDevices = 0
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
        await writeHistory(
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

  registerEntityRoutes(app, services, upgrade, {
    beforeDelete: async ({ tx, rows }) => {
      const busy = rows.find((r) => UNDELETABLE.includes(String(r.status)))
      if (busy) throw conflict('ota.rollout.busy', { name: String(busy.name) })
      await anyDb(tx as never)
        .deleteFrom('otaCampaignDevice')
        .where(
          'campaignId',
          'in',
          rows.map((r) => num(r.campaignId)),
        )
        .execute()
    },
    guards: {
      submit: [
        async ({ tx, row, input }) => {
          const c = await campaignRow(anyDb(tx), num(row.campaignId))
          const resolved = await resolveTargets(anyDb(tx), part, c, rollout.now())
          // Kept with the submit step in the history: how many devices it took, and how many it left out and why.
          Object.assign(input, { targets: resolved.total, waves: resolved.waves, leftOut: resolved.leftOut })
        },
      ],
      approve: [
        async ({ tx, auth, row }) => {
          const c = await campaignRow(anyDb(tx), num(row.campaignId))
          if (c.createBy === auth.userName) throw forbidden('ota.rollout.selfApproval', { user: auth.userName })
        },
      ],
    },
    afterTransition: [afterStep],
    afterTransitionCommit: [afterCommit],
    actions: {
      retryFailed: async ({ tx: t, auth, rows }) => {
        const tx = anyDb(t)
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
        await writeHistory(tx, records)
        await updateCounters(tx, campaignId)
        if (reopen && c.payload === 'audio') await updateAudioStatus(tx, num(c.audioId))
        rollout.markLive(part, campaignId)
        wakeAfterCommit()
        return { queued: requeued.length }
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
    async (req) => overviewOf(anyDb(services.db), part, req.params.id, languageOf(req), rollout.now()),
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
