import { z } from 'zod'

// A device's trace (POST /iot/trace, issue 42 §2): one shape for the server's answer and the
// console's map. Positions are the rider's: the answer is for who holds member:pii:location.

/** The longest range one trace covers: a week of a device reporting every few seconds stays one index range. */
export const TRACE_MAX_DAYS = 7
/** Points a trace draws at most: more than a map shows; the summary is computed from every report. */
export const TRACE_MAX_POINTS = 2000
/** A stop: the device stayed within this many metres … */
export const TRACE_STOP_METRES = 30
/** … for at least this long. */
export const TRACE_STOP_SECONDS = 120
/** A ride's window on its bike's device is its duration before its upload, widened by this much at both ends. */
export const TRACE_RIDE_MARGIN_SECONDS = 60

const id = z.number().int().positive()
const instant = z.iso.datetime({ offset: true })

/** One of deviceId, bikeId, rideId; a ride brings its own window, the others need from and to. */
export const traceRequest = z
  .object({ deviceId: id.optional(), bikeId: id.optional(), rideId: id.optional(), from: instant.optional(), to: instant.optional() })
  .refine((b) => [b.deviceId, b.bikeId, b.rideId].filter((v) => v !== undefined).length === 1, { message: 'one of deviceId, bikeId, rideId' })
  .refine((b) => b.rideId !== undefined || (b.from !== undefined && b.to !== undefined), { message: 'from and to', path: ['from'] })
export type TraceRequest = z.infer<typeof traceRequest>

const position = { lat: z.number(), lng: z.number() }

export const traceStop = z.object({ ...position, from: z.string(), to: z.string(), seconds: z.number() })
export type TraceStop = z.infer<typeof traceStop>

export const traceSummary = z.object({
  /** Along the reported positions, every one (not only those drawn). */
  distanceKm: z.number(),
  /** From the first position to the last. */
  durationSeconds: z.number(),
  /** The highest speed a report gave, where and when; null without a speed. */
  topSpeed: z.object({ speed: z.number(), time: z.string(), ...position }).nullable(),
  stops: z.array(traceStop),
})
export type TraceSummary = z.infer<typeof traceSummary>

/** The trace as columns (as the map's MapDevices): the i-th entry of each array is one report, oldest first. */
export const trace = z.object({
  deviceId: z.number(),
  sn: z.string(),
  /** The range read (a ride's own window when a ride was asked for). */
  from: z.string(),
  to: z.string(),
  /** Positions before this were emptied by retention (privacy.retention.positionDays): the trace has none there. */
  retainedFrom: z.string(),
  /** Reports with a position in the range; more than the points drawn when the trace was thinned. */
  positionCount: z.number(),
  /** Epoch milliseconds. */
  times: z.array(z.number()),
  lat: z.array(z.number()),
  lng: z.array(z.number()),
  /** km/h; null where the report gave none. */
  speed: z.array(z.number().nullable()),
  summary: traceSummary,
  /** The base map to draw it on (MAP_STYLE_URL); absent: the world map shipped with the console. */
  styleUrl: z.string().optional(),
})
export type Trace = z.infer<typeof trace>
