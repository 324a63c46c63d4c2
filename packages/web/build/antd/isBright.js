// antd's isBright (antd/es/color-picker/components/ColorPresets.js, MIT), alone: antd's Button and
// Tag styles import it from the colour picker's presets module, which also holds the presets panel
// (with Collapse), so every page with a button carried the colour picker. Same code, same answer.
import { Color as RcColor } from '@rc-component/color-picker/es/color'

export const isBright = (value, bgColorToken) => {
  const { r, g, b, a } = value.toRgb()
  const hsv = new RcColor(value.toRgbString()).onBackground(bgColorToken).toHsv()
  if (a <= 0.5) return hsv.v > 0.5
  return r * 0.299 + g * 0.587 + b * 0.114 > 192
}
