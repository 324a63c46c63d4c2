import { addTexts, currentLanguage } from '../../i18n'
import en from './texts.en_US'
import zh from './texts.zh_CN'

// Imported by the operation dialog for its side effect: its words join i18next when it loads
// (i18next holds one language; a switch reloads the page).
addTexts(currentLanguage(), currentLanguage() === 'zh_CN' ? zh : en)
