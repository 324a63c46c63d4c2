import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import { registerFeedback } from './feedback'

/**
 * Members. Members and their rides have no rules of their own beyond the definitions (no add or
 * import: they sign up in the app; the app's password hash is a storage-only column that no field,
 * list, export or answer carries), so the engine serves them. Feedback and its tags: ./feedback.ts.
 */
export function registerMembers(app: FastifyInstance, services: Services) {
  registerFeedback(app, services)
}
