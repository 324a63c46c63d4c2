import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { iotEntities, isValidTopicFilter, isValidTopicName, type SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { EntityForm } from '../../crud/form/EntityForm'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { sseResponse, type SseHandle } from '../../test/sse'
import CommandTestPage from './commandTest/index'
import { clearHistory } from './commandTest/history'
import DevicePage from './device/index'
import ModelPage from './model/index'
import MqDebugPage from './mqDebug/index'

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[], roles = ['ops']) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles, permissions })
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body))
const envelope = (data: unknown, msg: string) => new Response(JSON.stringify({ code: 200, msg, data }), { status: 200, headers: { 'Content-Type': 'application/json' } })

const devices = [
  { deviceId: 1, sn: 'VB0001', modelId: 3, modelIdLabel: 'City 500', state: 'offline', flowState: 'normal', battery: 50, firmwareVersion: '1.0.0', lastSeenAt: '2026-01-01T08:00:00Z' },
  { deviceId: 2, sn: 'VB0002', modelId: 3, modelIdLabel: 'City 500', state: 'inactive', flowState: 'normal', battery: null, firmwareVersion: null, lastSeenAt: null },
]

/** Streams the pages opened, by URL, newest last. */
let streams: { url: string; handle: SseHandle }[] = []
const streamFor = (prefix: string) => streams.filter((s) => s.url.startsWith(prefix)).at(-1)!.handle

type Route = (path: string, init: RequestInit | undefined) => Response | Promise<Response> | undefined

function serve(route: Route = () => undefined) {
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input)
    const path = url.replace(/^\/api/, '')
    const own = await route(path, init)
    if (own) return own
    if (path.startsWith('/iot/stream') || path.startsWith('/iot/mqDebug/stream')) {
      const handle = sseResponse(init?.signal)
      streams.push({ url: path, handle })
      return handle.response
    }
    if (path.startsWith('/system/dict/getDicts/')) return jsonResponse([])
    if (path === '/iot/gateway') return jsonResponse({ protocolVersion: 1, embedded: true, port: 1883, connected: true, devicesOnline: 0, ingest: { pending: 3, cap: 20000, saturated: false, saturatedSeconds: 0 } })
    if (path === '/iot/device/list') return jsonResponse({ rows: devices, total: devices.length })
    if (path === '/iot/model/options') return jsonResponse([{ value: 3, label: 'City 500' }])
    return jsonResponse(null, 404)
  })
}

const rowOf = (text: string) => screen.getByText(text).closest('tr')!

/** OK on the confirmation saying `text` (other dialogs may be open, or still closing). */
async function confirm(text: string) {
  const dialog = await waitFor(() => {
    const found = screen.getAllByRole('dialog').find((d) => d.textContent?.includes(text))
    expect(found, `a dialog saying ${text}`).toBeTruthy()
    return found!
  })
  fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }))
}

/** Picks an option of an antd Select opened from its labelled input. */
async function pick(label: string, option: string, scope: HTMLElement = document.body) {
  const input = within(scope).getByLabelText(label)
  fireEvent.mouseDown(input)
  const dropdown = await waitFor(() => {
    const list = document.getElementById(input.getAttribute('aria-controls') ?? `${input.id}_list`)
    expect(list).toBeTruthy()
    return list!.closest('.ant-select-dropdown') as HTMLElement
  })
  fireEvent.click(await within(dropdown).findByText(option, { selector: '.ant-select-item-option-content, .ant-select-item-option-content *' }))
}

describe('IoT pages', () => {
  beforeEach(() => {
    streams = []
    vi.stubGlobal('fetch', fetchMock)
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
    clearHistory()
  })

  it('device list: patches a row in place when a device event arrives, without fetching the list again', async () => {
    signIn(['iot:device:list', 'iot:device:query'])
    serve()
    const { unmount } = renderWithProviders(<DevicePage />)
    await screen.findByText('VB0001')
    expect(within(rowOf('VB0001')).getByText('Offline')).toBeTruthy()
    await waitFor(() => expect(screen.getByTestId('iot-live').dataset.status).toBe('open'))
    expect(await screen.findByText('Gateway: 0 devices online')).toBeTruthy()

    streamFor('/iot/stream').send('device', { deviceId: 1, sn: 'VB0001', state: 'online', flowState: 'warning', lastSeenAt: '2026-01-01T09:00:00Z', battery: 77, firmwareVersion: '1.2.0', hardwareVersion: 'HW-B2' })
    await waitFor(() => expect(within(rowOf('VB0001')).getByText('Online')).toBeTruthy())
    const row = rowOf('VB0001')
    expect(within(row).getByText('77')).toBeTruthy()
    expect(within(row).getByText('1.2.0')).toBeTruthy()
    expect(within(row).getByText('HW-B2')).toBeTruthy()
    expect(within(row).getByText('Warning')).toBeTruthy()
    // Another device's row is left alone, and nothing was fetched again.
    expect(within(rowOf('VB0002')).getByText('Inactive')).toBeTruthy()
    expect(calls('POST', '/iot/device/list')).toHaveLength(1)
    // Without the command permission there is no reboot and no send.
    expect(screen.queryByTestId('device-reboot')).toBeNull()
    expect(screen.queryByTestId('device-send-command')).toBeNull()

    // Leaving the page closes the stream.
    const streamCall = fetchMock.mock.calls.find(([url]) => String(url) === '/api/iot/stream')!
    expect(streamCall[1]!.signal!.aborted).toBe(false)
    unmount()
    expect(streamCall[1]!.signal!.aborted).toBe(true)
  })

  it('device list: says when the ingest is full, and how long it has been', async () => {
    signIn(['iot:device:list'])
    serve((path) =>
      path === '/iot/gateway' ? jsonResponse({ protocolVersion: 1, embedded: false, connected: true, devicesOnline: 2000, ingest: { pending: 20000, cap: 20000, saturated: true, saturatedSeconds: 42.4 } }) : undefined,
    )
    renderWithProviders(<DevicePage />)
    expect(await screen.findByText('Gateway: 2000 devices online')).toBeTruthy()
    const full = await screen.findByTestId('iot-ingest')
    expect(full.textContent).toBe('Ingest full: 20000 of 20000')
    fireEvent.mouseEnter(full)
    expect(await screen.findByText(/Saturated for 42 s in all since start/)).toBeTruthy()
  })

  it('device list: reboots the selected devices after a confirmation naming their count, and shows the server message', async () => {
    signIn(['iot:device:list', 'iot:device:command'])
    serve((path) => (path === '/iot/device/reboot' ? envelope(null, 'Reboot command sent') : undefined))
    renderWithProviders(<DevicePage />)
    await screen.findByText('VB0001')
    const reboot = screen.getByTestId('device-reboot') as HTMLButtonElement
    expect(reboot.disabled).toBe(true)
    const [, first, second] = screen.getAllByRole('checkbox')
    fireEvent.click(first!)
    fireEvent.click(second!)
    fireEvent.click(reboot)
    await confirm('Reboot 2 selected devices? They go offline for a moment.')
    await waitFor(() => expect(calls('POST', '/iot/device/reboot')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/iot/device/reboot')[0]!)).toEqual({ deviceIds: [1, 2] })
    expect(await screen.findByText('Reboot command sent')).toBeTruthy()
  })

  it('device list: sends a command to the selected devices with its example as parameters, confirmed with the count', async () => {
    signIn(['iot:device:list', 'iot:device:command'])
    serve((path) => (path === '/iot/device/command' ? envelope({ commands: [], sent: 1, queued: 0 }, 'Command sent to 1 device') : undefined))
    renderWithProviders(<DevicePage />)
    await screen.findByText('VB0001')
    fireEvent.click(screen.getAllByRole('checkbox')[1]!)
    fireEvent.click(screen.getByTestId('device-send-command'))
    await screen.findByText('Send a command to 1 device')
    await pick('Command', 'Find my bike (beep and flash)')
    await waitFor(() => expect((screen.getByTestId('send-command-params') as HTMLTextAreaElement).value).toContain('"seconds": 5'))
    fireEvent.click(screen.getByRole('button', { name: 'Send' }))
    await confirm('Send "Find my bike (beep and flash)" to 1 selected device?')
    await waitFor(() => expect(calls('POST', '/iot/device/command')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/iot/device/command')[0]!)).toEqual({ deviceIds: [1], command: 'findBike', params: { seconds: 5 } })
    expect(await screen.findByText('Command sent to 1 device')).toBeTruthy()
  })

  it('device list: a reset secret is shown once, with a copy button and a warning', async () => {
    signIn(['iot:device:list', 'iot:device:edit'])
    serve((path, init) => (path === '/iot/device/1/secret' && init?.method === 'PUT' ? jsonResponse({ secret: 's3cr3t-value' }) : undefined))
    renderWithProviders(<DevicePage />)
    await screen.findByText('VB0001')
    fireEvent.click(within(rowOf('VB0001')).getByTestId('row-reset-secret'))
    await confirm('Reset the secret of device VB0001?')
    expect((await screen.findByTestId('device-secret')).textContent).toBe('s3cr3t-value')
    expect(screen.getByText('This secret is shown only now')).toBeTruthy()
    expect(screen.getByTestId('device-secret-copy')).toBeTruthy()
    fireEvent.click(screen.getByTestId('device-secret-close'))
    await waitFor(() => expect(screen.queryByTestId('device-secret')).toBeNull())
  })

  it('device list: the secret of a new device is shown once after it is added', async () => {
    signIn(['iot:device:list', 'iot:device:add'])
    serve((path, init) => (path === '/iot/device' && init?.method === 'POST' ? jsonResponse({ deviceId: 3, sn: 'VB0003', modelId: 3, state: 'inactive', secret: 'first-secret' }) : undefined))
    renderWithProviders(<DevicePage />)
    await screen.findByText('VB0001')
    fireEvent.click(screen.getByTestId('crud-add'))
    const form = await screen.findByTestId('entity-form')
    fireEvent.change(within(form).getByLabelText('SN'), { target: { value: 'VB0003' } })
    await pick('Product model', 'City 500', form)
    fireEvent.click(screen.getByTestId('entity-form-save'))
    await waitFor(() => expect(calls('POST', '/iot/device')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/iot/device')[0]!)).toMatchObject({ sn: 'VB0003', modelId: 3 })
    expect((await screen.findByTestId('device-secret')).textContent).toBe('first-secret')
    expect(screen.getByText('Secret of device VB0003')).toBeTruthy()
  })

  it('device drawer: shows the fields, recent telemetry, and command statuses and messages as they arrive', async () => {
    signIn(['iot:device:list', 'iot:device:query'])
    const telemetry = { messageId: 10, deviceId: 1, direction: 'up', kind: 'telemetry', topic: 'velo/v1/VB0001/up/telemetry', payload: '{"v":1,"battery":64,"signal":-71,"gps":{"lat":52.37,"lng":4.89}}', createTime: '2026-01-01T08:00:00Z' }
    const sent = { commandId: 5, deviceId: 1, command: 'ping', status: 'sent', reply: null, roundTripMs: null, createTime: '2026-01-01T08:01:00Z' }
    serve((path) => {
      if (path === '/iot/device/1') return jsonResponse({ ...devices[0], uuid: 'u-1', simNumber: '8931000000000000000' })
      if (path === '/iot/message/list') return jsonResponse({ rows: [telemetry], total: 1 })
      if (path === '/iot/command/list') return jsonResponse({ rows: [sent], total: 1 })
      return undefined
    })
    renderWithProviders(<DevicePage />)
    fireEvent.click(await screen.findByTestId('device-sn-VB0001'))
    const details = await screen.findByTestId('device-details')
    expect(within(details).getByText('8931000000000000000')).toBeTruthy()
    await waitFor(() => expect(streams.some((s) => s.url === '/iot/stream?deviceId=1')).toBe(true))
    expect(bodyOf(calls('POST', '/iot/message/list').find((c) => bodyOf(c).kind === 'telemetry')!)).toEqual({ pageNum: 1, pageSize: 20, deviceId: 1, kind: 'telemetry' })

    fireEvent.click(screen.getByRole('tab', { name: 'Telemetry' }))
    const table = await screen.findByTestId('device-telemetry')
    await waitFor(() => expect(within(table).getByText('64')).toBeTruthy())
    expect(within(table).getByText('-71')).toBeTruthy()
    expect(within(table).getByText('52.37000')).toBeTruthy()

    const stream = streamFor('/iot/stream?deviceId=1')
    fireEvent.click(screen.getByRole('tab', { name: 'Commands' }))
    const commands = await screen.findByTestId('device-commands')
    await waitFor(() => expect(within(commands).getByText('Sent')).toBeTruthy())
    stream.send('command', { commandId: 5, deviceId: 1, command: 'ping', status: 'succeeded', reply: '{"pong":1}', roundTripMs: 42 })
    await waitFor(() => expect(within(commands).getByText('Succeeded')).toBeTruthy())
    expect(within(commands).getByText('42 ms')).toBeTruthy()

    stream.send('message', { deviceId: 1, sn: 'VB0001', direction: 'up', kind: 'status', topic: 'velo/v1/VB0001/up/status', payload: '{"v":1,"configVersion":"2.0.0"}', time: '2026-01-01T08:02:00Z' })
    fireEvent.click(screen.getByRole('tab', { name: 'Messages' }))
    const messages = await screen.findByTestId('device-messages')
    await waitFor(() => expect(within(messages).getAllByRole('row').length).toBeGreaterThan(2))
    const firstRow = within(messages).getAllByRole('row')[1]!
    expect(within(firstRow).getByText('status')).toBeTruthy()
  })

  it('command test: prefills the example, confirms a command that asks for it, and shows the reply and round trip', async () => {
    signIn(['iot:commandTest:send'])
    serve((path) => {
      if (path === '/iot/device/options') return jsonResponse([{ value: 7, label: 'VB0007' }])
      if (path === '/iot/device/7/commands') {
        // Labels come in the language of the request.
        return jsonResponse([
          { name: 'ping', label: 'Ping', base: true, example: {} },
          { name: 'reboot', label: 'Reboot', base: true, confirm: true, example: { delaySeconds: 0 } },
        ])
      }
      if (path === '/iot/commandTest/send') {
        return envelope(
          { commandId: 9, requestId: 'req-9', deviceId: 7, command: 'reboot', status: 'succeeded', reply: '{"id":"req-9","status":"succeeded","code":0}', roundTripMs: 42, sentAt: null, repliedAt: null },
          'The device answered: succeeded (42 ms)',
        )
      }
      return undefined
    })
    renderWithProviders(<CommandTestPage />)
    await pick('Device', 'VB0007')
    await waitFor(() => expect(calls('GET', '/iot/device/7/commands')).toHaveLength(1))
    await pick('Command', 'Reboot')
    const params = screen.getByTestId('command-test-params') as HTMLTextAreaElement
    await waitFor(() => expect(params.value).toBe('{\n  "delaySeconds": 0\n}'))

    // Not JSON: nothing is sent.
    fireEvent.change(params, { target: { value: '{oops' } })
    fireEvent.click(screen.getByTestId('command-test-send'))
    expect(await screen.findByText('Enter a JSON object, e.g. {"seconds": 5}')).toBeTruthy()
    expect(calls('POST', '/iot/commandTest/send')).toHaveLength(0)

    fireEvent.change(params, { target: { value: '{"delaySeconds": 3}' } })
    fireEvent.click(screen.getByTestId('command-test-send'))
    await confirm('Send "Reboot" to device VB0007?')
    await waitFor(() => expect(calls('POST', '/iot/commandTest/send')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/iot/commandTest/send')[0]!)).toEqual({ deviceId: 7, command: 'reboot', params: { delaySeconds: 3 }, timeoutSeconds: 10 })
    expect((await screen.findByTestId('command-rtt')).textContent).toBe('42 ms')
    expect(screen.getByTestId('command-message').textContent).toContain('The device answered: succeeded (42 ms)')
    expect(within(screen.getByTestId('command-result')).getByText('Succeeded')).toBeTruthy()
    expect(screen.getByTestId('command-reply').textContent).toBe('{\n  "id": "req-9",\n  "status": "succeeded",\n  "code": 0\n}')
    const history = screen.getByTestId('command-test-history')
    expect(within(history).getByText('req-9')).toBeTruthy()
    expect(within(history).getByText('VB0007')).toBeTruthy()
  })

  it('models: shows the registration key with a copy button and resets it after a confirmation', async () => {
    signIn(['iot:model:list', 'iot:model:edit'])
    serve((path, init) => {
      if (path === '/iot/model/list') return jsonResponse({ rows: [{ modelId: 3, productId: 'city500', name: 'City 500', productCode: 'CT', snPrefix: 'VB', status: '0' }], total: 1 })
      if (path === '/iot/model/3/registrationKey') return jsonResponse({ registrationKey: init?.method === 'PUT' ? 'new-key' : 'old-key' })
      return undefined
    })
    renderWithProviders(<ModelPage />)
    fireEvent.click(await screen.findByTestId('row-registration-key'))
    expect((await screen.findByTestId('registration-key')).textContent).toBe('old-key')
    expect(screen.getByTestId('registration-key-copy')).toBeTruthy()
    fireEvent.click(screen.getByTestId('registration-key-reset'))
    await confirm('Reset the registration key of City 500?')
    await waitFor(() => expect(screen.getByTestId('registration-key').textContent).toBe('new-key'))
    expect(calls('PUT', '/iot/model/3/registrationKey')).toHaveLength(1)
  })

  it('functions: the generic form picks models from their options and the command from the catalogue', async () => {
    serve()
    renderWithProviders(<EntityForm entity={iotEntities.iotFunction} onClose={() => {}} />)
    await pick('Command', 'Lock')
    fireEvent.mouseDown(await screen.findByLabelText('Supported models'))
    expect(await screen.findByText('City 500')).toBeTruthy()
  })

  it('message-queue debugging: admin only; watches a filter live and publishes after a confirmation', async () => {
    signIn(['iot:mqDebug:list'])
    serve()
    const { unmount } = renderWithProviders(<MqDebugPage />)
    expect(await screen.findByText('Only administrators can debug the message queue.')).toBeTruthy()
    unmount()

    signIn(['*:*:*'], ['admin'])
    serve((path) => (path === '/iot/mqDebug/publish' ? envelope(null, 'Message published') : undefined))
    renderWithProviders(<MqDebugPage />)
    expect((screen.getByTestId('mq-filter') as HTMLInputElement).value).toBe('velo/v1/+/up/#')
    fireEvent.click(screen.getByTestId('mq-subscribe'))
    await waitFor(() => expect(streams.map((s) => s.url)).toEqual(['/iot/mqDebug/stream?topic=velo%2Fv1%2F%2B%2Fup%2F%23']))
    streamFor('/iot/mqDebug/stream').send('message', { topic: 'velo/v1/VB0001/up/telemetry', payload: '{"v":1,"battery":80}', qos: 0, retain: false, time: '2026-01-01T08:00:00Z' })
    const list = screen.getByTestId('mq-messages')
    await waitFor(() => expect(within(list).getByText('velo/v1/VB0001/up/telemetry')).toBeTruthy())
    expect(within(list).getByText(/"battery": 80/)).toBeTruthy()
    streamFor('/iot/mqDebug/stream').send('dropped', { count: 12 })
    expect((await screen.findByTestId('mq-dropped')).textContent).toBe('12 left out (too many per second)')
    fireEvent.click(screen.getByTestId('mq-clear'))
    await waitFor(() => expect(within(list).queryByText('velo/v1/VB0001/up/telemetry')).toBeNull())

    fireEvent.change(screen.getByTestId('mq-publish-topic'), { target: { value: 'velo/v1/VB0001/down/command' } })
    fireEvent.click(screen.getByTestId('mq-publish'))
    await confirm('Publish this message to velo/v1/VB0001/down/command with QoS 1?')
    await waitFor(() => expect(calls('POST', '/iot/mqDebug/publish')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/iot/mqDebug/publish')[0]!)).toEqual({ topic: 'velo/v1/VB0001/down/command', payload: '{\n  "v": 1\n}', qos: 1, retain: false })
    expect(await screen.findByText('Message published')).toBeTruthy()
  })

  it('checks MQTT topic filters and topics as the broker does', () => {
    for (const ok of ['velo/v1/+/up/#', '#', '+', 'a/+/b', 'velo/v1/VB0001/up/status']) expect(isValidTopicFilter(ok), ok).toBe(true)
    for (const bad of ['', 'a/#/b', 'a/b#', 'a/+b', 'velo/v1/x+/up', '$share/g/velo/#', 'x'.repeat(256)]) expect(isValidTopicFilter(bad), bad).toBe(false)
    expect(isValidTopicName('velo/v1/VB0001/down/command')).toBe(true)
    for (const bad of ['', 'velo/+/x', 'velo/#', '$SYS/x']) expect(isValidTopicName(bad), bad).toBe(false)
  })
})
