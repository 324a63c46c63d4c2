import { UpgradePage } from '../../UpgradePage'

/** /ota/iotpart/upgrade (SPEC §2): the IoT module's upgrade campaigns, the same page as IoT › IoT upgrade. */
export default function IotPartUpgradePage() {
  return <UpgradePage part="iot" />
}
