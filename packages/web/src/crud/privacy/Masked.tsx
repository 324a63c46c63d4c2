import { lazy, Suspense } from 'react'
import type { PersonalCategory } from '@velo/shared'
import { MASK_PLACEHOLDER } from './placeholder'

// What a cell or a details line draws for a masked personal value: the mask at once, and why (its
// title, in the page's language) with MaskedValue.tsx, loaded with the first masked value a page
// shows, so no list's first screen carries it.

const Why = lazy(() => import('./MaskedValue'))

/** A personal value the user has no right to see (`label`: a reference's label naming a rider, masked only for whoever lacks the category's right). */
export function Masked({ category, value, label = false }: { category: PersonalCategory; value: unknown; label?: boolean }) {
  // Until its title has loaded, the mask alone.
  const bare = label ? String(value) : (
    <span className="crud-masked" data-testid="masked-value">
      {typeof value === 'string' && value !== '' ? value : MASK_PLACEHOLDER}
    </span>
  )
  return (
    <Suspense fallback={bare}>
      <Why category={category} value={value} label={label} />
    </Suspense>
  )
}
