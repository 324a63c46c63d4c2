import { PartPage } from '../PartPage'

/** OTA parts › the IoT module: its suppliers, products, firmware and upgrades. */
export default function IotPartPage() {
  return <PartPage part="iot" />
}
