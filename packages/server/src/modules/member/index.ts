import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import { registerFeedback } from './feedback'
import { registerMemberRequests } from './members'

/**
 * Members. Members and their rides have few rules of their own beyond the definitions (no add or
 * import: they sign up in the app; the app's password hash is a storage-only column that no field,
 * list, export or answer carries), so the engine serves them; a rider's requests (data package,
 * erasure): ./members.ts. Feedback and its tags: ./feedback.ts.
 */
export function registerMembers(app: FastifyInstance, services: Services) {
  registerMemberRequests(app, services)
  registerFeedback(app, services)
}
