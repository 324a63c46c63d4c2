import { addTexts, currentLanguage } from '../../i18n'
import en from './texts.en_US'
import zh from './texts.zh_CN'

// Imported by the large inputs for its side effect: their words join i18next when they load
// (i18next holds one language; a switch reloads the page).
addTexts(currentLanguage(), currentLanguage() === 'zh_CN' ? zh : en)
