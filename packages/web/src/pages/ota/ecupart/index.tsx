import { PartPage } from '../PartPage'

/** OTA parts › the controller (ECU): its suppliers, products, firmware and upgrades. */
export default function EcuPartPage() {
  return <PartPage part="ecu" />
}
