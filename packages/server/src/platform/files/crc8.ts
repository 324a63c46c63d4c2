// The CRC-8 lives in the shared package: the device simulator checks each OTA block with the same one.
export { Crc8, crc8, type Crc8Name, type Crc8Variant, CRC8_VARIANTS, FILE_CRC8 } from '@velo/shared'
