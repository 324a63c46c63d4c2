import { PartPage } from '../PartPage'

/** OTA parts › the display: its suppliers, products, firmware and upgrades. */
export default function DisplayPartPage() {
  return <PartPage part="display" />
}
