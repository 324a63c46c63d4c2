// Tool system › IoT device tool's texts in English, loaded with the pages under this folder (routes/pageTexts.ts) rather than with the console. texts.zh_CN.ts has the same keys (the type checks it).

const texts = {
  'tool.device.production': 'Production devices',
  'tool.device.test': 'Test devices',
}

export type TextKey = keyof typeof texts
export default texts
