import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import { registerOtaCatalogue } from './catalogue'
import { registerOtaRollout } from './rollout'
import { registerOtaSigning } from './signing'
import { registerOtaTransfer } from './transfer'

/**
 * Firmware, audio and OTA upgrades of the four bike parts (issue 18): the catalogue (suppliers,
 * products, firmware and audio with their digests), the transfer (the blocks devices pull over
 * MQTT) and the rollout (campaigns in waves that pause themselves). After the IoT area: the rollout
 * reads the warnings and sends through the gateway.
 */
export function registerOta(api: FastifyInstance, services: Services) {
  registerOtaCatalogue(api, services)
  registerOtaSigning(api, services)
  registerOtaTransfer(api, services)
  registerOtaRollout(api, services)
}
