import { MASK } from '@velo/shared'

/** What stands for a personal value the server answered as null: there is one, it is hidden. */
export const MASK_PLACEHOLDER = MASK.repeat(3)
