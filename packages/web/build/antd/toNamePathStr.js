// antd's toNamePathStr (antd/es/form/hooks/useForm.js, MIT), alone: Radio.Group imports it from the
// form's useForm module, which imports the whole form kit (@rc-component/form with its validator).
import { toArray } from 'antd/es/form/util'

export function toNamePathStr(name) {
  return toArray(name).join('_')
}
