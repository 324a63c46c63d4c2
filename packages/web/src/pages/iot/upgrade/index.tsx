import { UpgradePage } from '../../ota/UpgradePage'

/** IoT › IoT upgrade: the IoT module's upgrade campaigns. */
export default function IotUpgradePage() {
  return <UpgradePage part="iot" />
}
