import { buildApp } from './app'
import { ConfigError, loadConfig } from './config'

async function main() {
  let config
  try {
    config = loadConfig()
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message)
      process.exit(1)
    }
    throw e
  }
  const app = await buildApp(config)
  const { generatedAdminPassword } = app.seedResult
  if (generatedAdminPassword) {
    // Printed once, at the first start; it is not stored anywhere in clear.
    console.log(`\n  Initial administrator: admin / ${generatedAdminPassword}\n  (set ADMIN_PASSWORD before the first start to choose it)\n`)
  }
  if (app.seedResult.demoRegistrationKey) {
    console.log(`  Demo IoT model VELO-4G registration key: ${app.seedResult.demoRegistrationKey}\n  (simulated bikes: npm run sim -- --devices 20 --key <this key>)\n`)
  }
  const { broker } = app
  if (broker && broker.requestedPort !== 0 && broker.port !== broker.requestedPort) {
    console.log(`MQTT port ${broker.requestedPort} is taken (another broker?): the embedded broker listens on ${broker.port} instead`)
  } else if (broker) {
    console.log(`Embedded MQTT broker on port ${broker.port}`)
  }
  // The routes' serializers are not built ahead in the background: each is built at its route's
  // first answer (0.3 ms on average). Built ahead, all ~1,500 stayed in every idle server's memory
  // (5 MB of heap, 9 MB resident), most for routes that server never answers (issue 43).
  await app.listen({ port: config.port, host: config.host })
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host
  console.log(`Velo Admin is running on http://${shown}:${config.port} (API under ${config.apiPrefix}, docs at ${config.apiPrefix}/docs)`)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void app.close().then(() => process.exit(0))
    })
  }
}

main().catch((err: unknown) => {
  const e = err as { code?: string; message?: string }
  if (e.code === 'EADDRINUSE') console.error(`Cannot start: ${e.message}. Set PORT to a free port.`)
  else console.error(err)
  process.exit(1)
})
