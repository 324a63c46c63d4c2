/**
 * The values of an IoT configuration template (SPEC §3) as a device receives them in setConfig
 * `values` and reports them back in `status.config`. The template's definition (entities/iot-config.ts)
 * has one field per key; the server builds a push from a template row and compares what a device
 * reports with it (drift), both through the functions here, so the three never disagree on a key.
 */

export interface ConfigValueSpec {
  key: string
  min: number
  max: number
  default: number
}

/** Keys sent to the device, in the order the drift view lists them. */
export const CONFIG_VALUES = [
  // Alert thresholds and amplitudes.
  { key: 'lowBatteryPercent', min: 1, max: 50, default: 20 },
  { key: 'overSpeedKmh', min: 10, max: 60, default: 25 },
  { key: 'alarmVolume', min: 0, max: 10, default: 6 },
  { key: 'alarmSeconds', min: 1, max: 120, default: 15 },
  { key: 'fallAngle', min: 20, max: 90, default: 60 },
  { key: 'vibrationSensitivity', min: 1, max: 5, default: 3 },
  { key: 'wakeUpMinutes', min: 1, max: 1440, default: 60 },
  // The mode configurations: how often each mode wakes the modem.
  { key: 'lowPowerMinutes', min: 1, max: 1440, default: 30 },
  { key: 'ultraLowPowerHours', min: 1, max: 168, default: 24 },
  { key: 'transceiveSeconds', min: 5, max: 3600, default: 60 },
  { key: 'ridingSeconds', min: 1, max: 600, default: 10 },
  // GPS and trace reporting.
  { key: 'gpsReportSeconds', min: 1, max: 3600, default: 30 },
  { key: 'traceReportSeconds', min: 1, max: 3600, default: 5 },
  { key: 'traceReportMeters', min: 1, max: 1000, default: 20 },
] as const satisfies readonly ConfigValueSpec[]

export type ConfigValueKey = (typeof CONFIG_VALUES)[number]['key']
export const CONFIG_VALUE_KEYS: readonly ConfigValueKey[] = CONFIG_VALUES.map((v) => v.key)

export type ConfigValues = Record<string, string | number | boolean>

/** The setConfig `values` of a template row: every key, unset ones left out. */
export function templateValues(template: Partial<Record<ConfigValueKey, unknown>>): ConfigValues {
  const out: ConfigValues = {}
  for (const key of CONFIG_VALUE_KEYS) {
    const v = template[key]
    if (v !== null && v !== undefined && v !== '') out[key] = Number(v)
  }
  return out
}

/** The same values whatever order a device or the database lists them in: the version's input. */
export function canonicalValues(values: ConfigValues): string {
  return JSON.stringify(Object.keys(values).sort().map((k) => [k, values[k]]))
}

export interface ConfigDifference {
  field: string
  expected: string
  reported: string
}

const shown = (v: unknown) => (v === undefined || v === null ? '' : String(v))

/**
 * The template's keys whose reported value differs. A key the device does not report is drift
 * (expected, reported ''); keys the template does not set are the device's own business. A device
 * may send numbers as strings ("60"): the comparison is by value.
 */
export function configDrift(expected: ConfigValues, reported: ConfigValues): ConfigDifference[] {
  const out: ConfigDifference[] = []
  for (const key of CONFIG_VALUE_KEYS) {
    if (!(key in expected)) continue
    const want = expected[key]
    const got = reported[key]
    const same = got !== undefined && (got === want || (typeof want === 'number' && String(got).trim() !== '' && Number(got) === want))
    if (!same) out.push({ field: key, expected: shown(want), reported: shown(got) })
  }
  return out
}
