import { useEffect, useEffectEvent, useSyncExternalStore } from 'react'
import type { JobInfo } from '@velo/shared'
import { sessionStore } from '../session/sessionStore'
import { eventData, runEventStream, type EventStreamState } from './eventStream'
import { JOB_STREAM_URL } from './jobs'

// The signed-in user's jobs as they change, for the whole tab (docs/jobs.md): one
// GET /monitor/job/stream, whoever follows jobs. It opens when the first follower comes (the top
// bar's indicator while a job is unfinished, an import dialog following its job), closes when the
// last one goes or the user signs out, reconnects as every event stream does (api/eventStream.ts),
// and opens again for whoever signs in next while followers remain. Starting a job (a large export,
// an import) hands it to the top bar's list through here too.

export interface JobFollower {
  /** Each change of one of the user's jobs. */
  onJob?: (job: JobInfo) => void
  /**
   * The stream opened (`again` after a drop: events may have been missed meanwhile), or it was open
   * already when this follower came: what changed before may have to be read once.
   */
  onOpen?: (again: boolean) => void
}

const CLOSED: EventStreamState = { status: 'closed' }

let state: EventStreamState = CLOSED
const watchers = new Set<() => void>()
const followers = new Set<JobFollower>()
const starters = new Set<(job: JobInfo) => void>()
/** The open stream, and whose token it carries. */
let stream: { controller: AbortController; token: string } | null = null
let unwatchSession: (() => void) | null = null

function setState(next: EventStreamState) {
  if (next.status === state.status && next.error === state.error) return
  state = next
  for (const watcher of watchers) watcher()
}

function each(call: (follower: JobFollower) => void) {
  // A follower may leave while others are told.
  for (const follower of [...followers]) if (followers.has(follower)) call(follower)
}

function open() {
  const token = sessionStore.getState().token
  if (stream || !token) return
  const controller = new AbortController()
  stream = { controller, token }
  const live = () => !controller.signal.aborted
  void runEventStream({
    url: JOB_STREAM_URL,
    signal: controller.signal,
    onEvent: (event) => {
      if (event.event !== 'job') return
      const job = eventData<JobInfo>(event)
      if (job && live()) each((f) => f.onJob?.(job))
    },
    onOpen: (again) => {
      if (live()) each((f) => f.onOpen?.(again))
    },
    onStatus: (status, error) => {
      if (live()) setState({ status, error })
    },
  }).then(() => {
    // Refused for good (signed out elsewhere, no right): the next follower tries again.
    if (stream?.controller === controller) stream = null
  })
}

function close() {
  stream?.controller.abort()
  stream = null
  setState(CLOSED)
}

/** Signed out: closed. Signed in again (or as someone else): opened with the new token. */
function sessionChanged() {
  const token = sessionStore.getState().token
  if (stream && stream.token === token) return
  close()
  if (token && followers.size) open()
}

export const jobStore = {
  /** Follows the user's jobs until the answer is called; the first follower opens the stream, the last one's leaving closes it. */
  follow(follower: JobFollower): () => void {
    followers.add(follower)
    unwatchSession ??= sessionStore.subscribe(sessionChanged)
    if (!stream) open()
    else if (state.status === 'open') follower.onOpen?.(false)
    return () => {
      if (!followers.delete(follower) || followers.size) return
      unwatchSession?.()
      unwatchSession = null
      close()
    }
  },
  /** Whether the stream is open, reconnecting or closed (and why). */
  getState: (): EventStreamState => state,
  subscribe(watcher: () => void): () => void {
    watchers.add(watcher)
    return () => void watchers.delete(watcher)
  },
  /** A job just started in this tab (a large export, an import left running): the top bar's list shows it, opened. */
  started(job: JobInfo): void {
    for (const starter of [...starters]) starter(job)
  },
  /** Told of each job started in this tab (the top bar's indicator). */
  onStarted(starter: (job: JobInfo) => void): () => void {
    starters.add(starter)
    return () => void starters.delete(starter)
  },
}

/**
 * Follows the user's jobs while mounted and `enabled`: `onJob` for each change, `onOpen` when the
 * stream (re)opens or is found open. Answers the stream's state. The handlers may change between
 * renders without reconnecting anything.
 */
export function useJobStream(enabled: boolean, follower: JobFollower): EventStreamState {
  const onJob = useEffectEvent((job: JobInfo) => follower.onJob?.(job))
  const onOpen = useEffectEvent((again: boolean) => follower.onOpen?.(again))
  useEffect(() => {
    if (!enabled) return
    return jobStore.follow({ onJob: (job) => onJob(job), onOpen: (again) => onOpen(again) })
  }, [enabled])
  const current = useSyncExternalStore(jobStore.subscribe, jobStore.getState, jobStore.getState)
  return enabled ? current : CLOSED
}
