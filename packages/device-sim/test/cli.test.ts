import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseCli, UsageError, USAGE } from '../src/cli'

const ok = (argv: string[], env: Record<string, string> = {}, cwd = '/home/me/velo') => {
  const r = parseCli(argv, env, cwd)
  if (r.help) throw new Error('help')
  return r.options
}
const fails = (argv: string[], env: Record<string, string> = {}) => {
  try {
    parseCli(argv, env)
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError)
    return (err as Error).message
  }
  throw new Error(`accepted ${argv.join(' ')}`)
}

describe('sim command line', () => {
  it('has defaults for everything but the key', () => {
    expect(ok(['--key', 'k'])).toEqual({
      devices: 10,
      api: 'http://localhost:8080/api',
      product: 'VELO-4G',
      key: 'k',
      prefix: 'VL',
      start: 1,
      latencyMs: 0,
      failureRate: 0,
      silent: [],
      telemetrySeconds: 10,
      heartbeatSeconds: 60,
      statusSeconds: 300,
      activated: 0.5,
      concurrency: 200,
      keepalive: 60,
      secrets: resolve('.device-sim/secrets.json'),
      otaBytesPerSecond: 0,
      otaFailRate: 0,
      otaFailCode: 'E_FLASH_WRITE',
      otaHttp: false,
      otaSelfTestFailRate: 0,
      otaNoCommitRate: 0,
      otaBadSignatureRate: 0,
      riding: 0,
      faults: [],
    })
  })

  it('reads every option', () => {
    const o = ok(
      ['--devices', '10_000', '--api', 'http://10.0.0.5:9000/api/', '--product', 'VELO-5G', '--broker', 'mqtt://10.0.0.5:1883', '--prefix', 'VX', '--start', '501'],
      { SIM_KEY: 'from-env' },
    )
    expect(o).toMatchObject({ devices: 10_000, api: 'http://10.0.0.5:9000/api', product: 'VELO-5G', key: 'from-env', broker: 'mqtt://10.0.0.5:1883', prefix: 'VX', start: 501 })
    const b = ok(['--key=k', '--latency', '250', '--failure-rate', '0.1', '--silent', 'reboot, locate', '--telemetry', '0', '--heartbeat', '30', '--status', '0', '--activated', '1', '--concurrency', '50', '--keepalive', '30', '--secrets', 'my/secrets.json'])
    expect(b).toMatchObject({ latencyMs: 250, failureRate: 0.1, silent: ['reboot', 'locate'], telemetrySeconds: 0, heartbeatSeconds: 30, statusSeconds: 0, activated: 1, concurrency: 50, keepalive: 30 })
    // A relative --secrets is the user's folder's, not npm's script folder.
    expect(b.secrets).toBe('/home/me/velo/my/secrets.json')
    expect(ok(['--key', 'k', '--secrets', '/tmp/s.json']).secrets).toBe('/tmp/s.json')
    // The commit contract's knobs: shares of the fleet whose self-test fails, or hangs until the commit deadline.
    expect(ok(['--key', 'k', '--ota-self-test-fail-rate', '0.2', '--ota-no-commit-rate', '0.05'])).toMatchObject({ otaSelfTestFailRate: 0.2, otaNoCommitRate: 0.05 })
    expect(ok(['--key', 'k', '--ota-bad-signature-rate', '0.1'])).toMatchObject({ otaBadSignatureRate: 0.1 })
    // --key wins over SIM_KEY.
    expect(ok(['--key', 'cli'], { SIM_KEY: 'env' }).key).toBe('cli')
  })

  it('asks for the key and says where to find it', () => {
    const msg = fails(['--devices', '5'])
    expect(msg).toMatch(/--key KEY or set SIM_KEY/)
    expect(msg).toMatch(/first start/)
    expect(msg).toMatch(/IoT models/)
    expect(fails([], { SIM_KEY: '  ' })).toMatch(/registration key is missing/)
  })

  it('refuses bad values in one line each', () => {
    const cases: [string[], RegExp][] = [
      [['--devices', '0'], /--devices must be a whole number from 1 to 100000, not "0"/],
      [['--devices', '2.5'], /--devices must be a whole number/],
      [['--devices', 'many'], /--devices/],
      [['--failure-rate', '1.5'], /--failure-rate must be a number from 0 to 1/],
      [['--ota-self-test-fail-rate', '2'], /--ota-self-test-fail-rate must be a number from 0 to 1/],
      [['--ota-no-commit-rate', 'some'], /--ota-no-commit-rate/],
      [['--activated', '-0.1'], /--activated/],
      [['--latency', '-5'], /--latency/],
      [['--telemetry', 'often'], /--telemetry/],
      [['--concurrency', '0'], /--concurrency/],
      [['--api', 'localhost:8080'], /--api must be a URL like http:\/\/localhost:8080\/api/],
      [['--api', 'ftp://x/api'], /--api must be a URL/],
      [['--broker', 'http://127.0.0.1:1883'], /--broker must be a URL like mqtt:\/\//],
      [['--prefix', 'vl'], /--prefix must be 1 to 8 upper-case letters or digits/],
      [['--prefix', 'V-L'], /--prefix/],
      [['--prefix', 'ABCDEFGH', '--start', '9999999999999999999999999'], /--start/],
      [['--product', 'has space'], /--product/],
      [['--nope'], /Unknown option '--nope' \(see --help\)/],
      [['extra'], /positional/i],
      [['--devices'], /--devices/],
    ]
    for (const [argv, re] of cases) {
      const msg = fails([...argv, '--key', 'k'])
      expect(msg, argv.join(' ')).toMatch(re)
      expect(msg, argv.join(' ')).not.toContain('\n')
    }
  })

  it('takes any prefix and range whose SNs are valid', () => {
    expect(ok(['--key', 'k', '--prefix', 'A', '--start', '0']).prefix).toBe('A')
    expect(ok(['--key', 'k', '--prefix', 'ABCDEFGH', '--start', '999999999', '--devices', '100000']).start).toBe(999_999_999)
  })

  it('prints its usage for --help', () => {
    expect(parseCli(['--help'])).toEqual({ help: true })
    expect(parseCli(['-h', '--devices', 'x'])).toEqual({ help: true })
    for (const flag of ['--devices', '--api', '--product', '--key', '--broker', '--prefix', '--start', '--latency', '--failure-rate', '--telemetry', '--heartbeat', '--activated', '--concurrency', '--secrets', '--ota-self-test-fail-rate', '--ota-no-commit-rate']) {
      expect(USAGE).toContain(flag)
    }
  })
})
