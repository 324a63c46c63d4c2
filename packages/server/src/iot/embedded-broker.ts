import { createServer, type Server } from 'node:net'
import { Aedes, type AuthenticateHandler } from 'aedes'

export interface EmbeddedBroker {
  aedes: Aedes
  /** The port asked for (MQTT_PORT). */
  requestedPort: number
  /** The port it listens on: the requested one, or a free one when that was taken. */
  port: number
  close(): Promise<void>
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening)
      reject(err)
    }
    const onListening = () => {
      server.off('error', onError)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port)
  })
}

/**
 * The in-process MQTT broker of the embedded defaults (no MQTT_URL). A machine that already runs a
 * broker on the port keeps it: ours then takes a free port and says which.
 */
export async function startEmbeddedBroker(options: { port: number; authenticate: AuthenticateHandler }): Promise<EmbeddedBroker> {
  const aedes = await Aedes.createBroker({ authenticate: options.authenticate })
  const server = createServer(aedes.handle)
  let port: number
  try {
    port = await listen(server, options.port)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    port = await listen(server, 0)
  }
  return {
    aedes,
    requestedPort: options.port,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        aedes.close(() => server.close(() => resolve()))
      }),
  }
}

/**
 * Until the IoT gateway issues device secrets there is nobody a device could prove to be: every
 * connection is refused as not authorized (CONNACK 5) rather than let in unchecked.
 */
export const refuseUnregisteredDevices: AuthenticateHandler = (_client, _username, _password, done) => {
  const error = Object.assign(new Error('No device is registered with this broker'), { returnCode: 5 })
  done(error as never, false)
}
