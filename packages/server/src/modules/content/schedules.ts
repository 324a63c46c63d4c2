import { contentEntities, type ResolvedEntity } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest } from '../../platform/errors'
import type { Services } from '../../platform/services'
import { merged, on, timeOf } from './fields'

const { activity, banner } = contentEntities

type Row = Record<string, unknown>

/** A time window ends after it starts; an activity's New tag does not end before the activity starts. */
function checkWindow(row: Row) {
  const start = timeOf(row.startTime)
  const end = timeOf(row.endTime)
  if (start !== null && end !== null && end <= start) throw badRequest('content.endAfterStart', {}, on('endTime'))
  const tagEnd = timeOf(row.tagEndTime)
  if (start !== null && tagEnd !== null && tagEnd < start) throw badRequest('content.tagEndAfterStart', {}, on('tagEndTime'))
}

function registerWindowed(app: FastifyInstance, services: Services, e: ResolvedEntity) {
  registerEntityRoutes(app, services, e, {
    beforeCreate: async ({ values }) => checkWindow(values),
    beforeUpdate: async ({ before, values }) => checkWindow(merged(before, values)),
  })
}

/** Content › Activities and Home banners: what the app shows between a start and an end. */
export function registerSchedules(app: FastifyInstance, services: Services) {
  registerWindowed(app, services, activity)
  registerWindowed(app, services, banner)
}
