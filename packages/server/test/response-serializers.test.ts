import { describe, expect, it } from 'vitest'
import { useTestApp } from './harness'

// Route serializers are built at a route's first answer (platform/responses.ts), so a schema that
// cannot be serialized would only show when that route first answers: build them all here.
const t = useTestApp()

describe('response serializers', () => {
  it('build for every route of the app', async () => {
    // One route answered first: its serializer is built already and is not built twice.
    expect((await t.call({ url: '/api/common/features' })).status).toBe(200)
    expect(t.app.responseSerializers.buildAll()).toBeGreaterThan(500)
    expect(t.app.responseSerializers.buildAll()).toBe(0)
  })
})
