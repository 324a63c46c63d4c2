import { addPartTexts } from '../../i18n/partTexts'
import en from './texts.en_US'
import zh from './texts.zh_CN'

// Imported by the reveal's parts for its side effect.
addPartTexts({ en_US: en, zh_CN: zh })
