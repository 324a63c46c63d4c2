/**
 * The server as src/main.ts starts it, plus one definition with a `file` field (the product has none
 * yet, and a benchmark must not add one to the product), so `npm run bench` can measure an upload
 * through the engine's own file route. Bundled like the product (bench/files.ts builds it).
 */
import { registerEntities } from '@velo/shared'
import { sql } from 'kysely'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import { registerEntityRoutes } from '../src/platform/crud/routes'
import { benchFirmware } from './files-entity'

registerEntities(benchFirmware)

const config = loadConfig()
const app = await buildApp(config, {
  modules: async (api, services) => {
    const pk = services.dialect === 'postgres' ? 'bigserial primary key' : 'integer primary key autoincrement'
    await sql`create table if not exists bench_firmware (firmware_id ${sql.raw(pk)}, name varchar(50) not null, image varchar(255))`.execute(services.db.withoutPlugins())
    registerEntityRoutes(api, services, benchFirmware)
  },
})
await app.listen({ port: config.port, host: config.host })
console.log(`Velo Admin is running on http://${config.host}:${config.port} (bench build with ${benchFirmware.path})`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)))
