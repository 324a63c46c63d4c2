import { PartPage } from '../PartPage'

/** OTA parts › the battery (BMS): its suppliers, products, firmware and upgrades. */
export default function BmsPartPage() {
  return <PartPage part="bms" />
}
