import { ResultCode, type StepUpRequired } from '@velo/shared'
import type { KeyValueStore } from '../../kv-store'
import { AppError } from '../../errors'
import type { AuthContext } from '../../rbac/auth-context'
import type { ProofMethod, SecondFactors } from './second-factors'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route is a dangerous action: it asks for a second proof (the second factor, or the password
     * where none is enrolled) unless one was given in the last STEP_UP_MINUTES. Its permission counts
     * as a sensitive right: a role holding one requires a second factor (role.secondFactor 'auto').
     */
    stepUp?: boolean
  }
}

/**
 * Second proofs per session ("sudo mode"): a proof holds for STEP_UP_MINUTES in the session that gave
 * it, on every instance (the key-value store is Redis when there is one). Signing in is a proof.
 */
export class StepUp {
  /** The rights of the routes marked stepUp, and of dangerous writes that ask inside their handler. */
  readonly sensitiveRights = new Set<string>()
  /** The routes marked stepUp, as registered (a test walks them all). */
  readonly routes: { method: string; url: string }[] = []

  constructor(
    private readonly kv: KeyValueStore,
    private readonly factors: SecondFactors,
    private readonly minutes: number,
  ) {}

  private key(session: string) {
    return `proof:${session}`
  }

  async record(session: string): Promise<void> {
    // Zero minutes: every dangerous action asks; a proof then lets through only the call it was given for.
    await this.kv.set(this.key(session), '1', Math.max(1, Math.round(this.minutes * 60)))
  }

  async recent(session: string | undefined): Promise<boolean> {
    return !!session && (await this.kv.get(this.key(session))) !== null
  }

  /** How this user proves themselves again: their second factor, else their password. */
  async methodsOf(userId: number): Promise<ProofMethod[]> {
    const methods = await this.factors.methodsOf(userId)
    return methods.length ? methods : ['password']
  }

  /** Throws 401 STEP_UP_REQUIRED unless the caller's session gave a proof recently. */
  async assert(auth: AuthContext): Promise<void> {
    if (await this.recent(auth.session)) return
    const data: StepUpRequired = { methods: await this.methodsOf(auth.userId) }
    throw new AppError(401, 'auth.stepUpRequired', {}, ResultCode.STEP_UP_REQUIRED, data)
  }
}
