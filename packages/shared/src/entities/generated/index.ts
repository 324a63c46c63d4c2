import type { GeneratedModule } from '../../entity/generated'

// Rewritten by Tool system › Code generation: each downloaded module adds its file beside this one
// and its entry here, sorted by key.
export const GENERATED_MODULES: readonly GeneratedModule[] = []
