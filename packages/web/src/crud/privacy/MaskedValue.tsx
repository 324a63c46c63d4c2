import { PERSONAL_CATEGORY_LABELS, type PersonalCategory } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { useHiddenCategories } from './hidden'
import { MASK_PLACEHOLDER } from './placeholder'
import './privacyTexts'

// Loaded with the first masked value a page shows (Masked.tsx).

export { MASK_PLACEHOLDER }

/** Why a value is masked: "Personal data (contact details), hidden: …", in the page's language. */
export function useMaskedReason(): (category: PersonalCategory) => string {
  const { t } = useTranslation()
  return (category) => t('crud.maskedTip', { category: localized(PERSONAL_CATEGORY_LABELS[category]) })
}

/**
 * A personal value the user has no right to see: the server's partial mask as it came
 * (j•••@example.com), else the placeholder, muted, with why as its title. A title, not antd's
 * Tooltip: every list cell may hold one, and the tooltip's code would weigh on every list's first
 * screen (the bundle budget of e2e/bundle.spec.ts).
 */
export function MaskedValue({ category, value }: { category: PersonalCategory; value: unknown }) {
  const reason = useMaskedReason()
  const partial = typeof value === 'string' && value !== ''
  return (
    <span className={partial ? 'crud-masked crud-masked-partial' : 'crud-masked'} title={reason(category)} data-testid="masked-value">
      {partial ? value : MASK_PLACEHOLDER}
    </span>
  )
}

/** A reference's label naming a rider (a ride's member): masked by the server for a user without the category's right. */
export function PersonalLabel({ category, label }: { category: PersonalCategory; label: string }) {
  const hidden = useHiddenCategories()
  return hidden.has(category) ? <MaskedValue category={category} value={label} /> : label
}

/** What Masked.tsx loads: the value's mask with why, or a reference's label, masked for whoever lacks its category's right. */
export default function Why({ category, value, label }: { category: PersonalCategory; value: unknown; label: boolean }) {
  return label ? <PersonalLabel category={category} label={String(value)} /> : <MaskedValue category={category} value={value} />
}
