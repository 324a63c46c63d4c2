import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'

interface Redirect {
  /** The antd module that imports… */
  importer: RegExp
  /** …this (as written in its import)… */
  source: string
  /** …for a small part that this module holds alone. */
  to: string
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))

/**
 * A few antd modules import a whole package's index, or a module holding a whole component, for one
 * small export; as those modules are not free of side effects for the bundler, the rest comes along
 * into every page that shows a button or a text box: antd's form kit with its validator (~12 KB
 * gzipped) for the form context an Input reads and a field-name helper Radio.Group uses, and the colour picker with its presets panel and
 * Collapse (~5 KB) for the button's contrast check. Each redirect points that one import at the
 * module that holds the export itself, so the code that runs is the same.
 */
const REDIRECTS: Redirect[] = [
  // FormItemInputContext and friends need the FormProvider only.
  { importer: /antd[\\/]es[\\/]form[\\/]context\.js$/, source: '@rc-component/form', to: '@rc-component/form/es/FormContext' },
  // The text box, without the text area its package's index also holds.
  { importer: /antd[\\/]es[\\/]input[\\/]Input\.js$/, source: '@rc-component/input', to: '@rc-component/input/es/Input' },
  // The radio group's field-name helper, without the form store of the module it is kept in.
  { importer: /antd[\\/]es[\\/]radio[\\/]group\.js$/, source: '../form/hooks/useForm', to: here('./antd/toNamePathStr.js') },
  // The colour class, without the ColorPicker component of the same package's index.
  { importer: /antd[\\/]es[\\/]color-picker[\\/](color|util)\.js$/, source: '@rc-component/color-picker', to: '@rc-component/color-picker/es/color' },
  // The contrast check of a solid button or tag, without the presets panel it is kept with.
  { importer: /antd[\\/]es[\\/](button|tag)[\\/]style[\\/](token|index)\.js$/, source: '../../color-picker/components/ColorPresets', to: here('./antd/isBright.js') },
]

export function antdEntries(): Plugin {
  return {
    name: 'velo-antd-entries',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer) return null
      const redirect = REDIRECTS.find((r) => r.source === source && r.importer.test(importer))
      if (!redirect) return null
      return this.resolve(redirect.to, importer, { ...options, skipSelf: true })
    },
  }
}
