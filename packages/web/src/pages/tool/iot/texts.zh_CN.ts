import type { TextKey } from './texts.en_US'

// Tool system › IoT device tool's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'tool.device.production': '生产设备',
  'tool.device.test': '测试设备',
}

export default texts
