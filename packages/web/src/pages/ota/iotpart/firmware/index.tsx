import { FirmwareList } from '../../PartPage'

/** /ota/iotpart/firmware (SPEC §2): the IoT module's firmware, whose entity lives at IoT › Firmware (/iot/firmware). */
export default function IotPartFirmwarePage() {
  return <FirmwareList part="iot" />
}
