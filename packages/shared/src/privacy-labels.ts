import type { Label } from './entity/types'
import type { PersonalCategory } from './privacy'

// The names of personal data's categories and rights (privacy.ts), apart from it: the sidebar's
// catalogue carries the rights themselves to every page, these only what shows a mask or a right.

/** The categories' names: a masked value's hint, the rights' titles. */
export const PERSONAL_CATEGORY_LABELS: Record<PersonalCategory, Label> = {
  contact: { en_US: 'contact details', zh_CN: '联系方式' },
  body: { en_US: 'body data', zh_CN: '身体数据' },
  location: { en_US: 'positions', zh_CN: '位置' },
  content: { en_US: 'photos, texts and files', zh_CN: '照片、文字和文件' },
}

/** The buttons' titles in the role tree: "See contact details", and the reveal's. */
export function personalDataButtonTitle(name: string): Label | undefined {
  if (name === 'button.pii.reveal') return { en_US: 'Reveal one record (with a reason)', zh_CN: '查看单条记录（需说明原因）' }
  const category = PERSONAL_CATEGORY_LABELS[name.slice('button.pii.'.length) as PersonalCategory]
  return name.startsWith('button.pii.') && category ? { en_US: `See ${category.en_US}`, zh_CN: `查看${category.zh_CN}` } : undefined
}
