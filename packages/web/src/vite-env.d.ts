/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_PREFIX?: string
  readonly VITE_API_HOST?: string
}

/** The index of entity areas (build/entityAreas.ts, read by src/entities/areas.ts): which area's module holds a key, the key at a page path, and each area's loader. */
declare module 'virtual:velo-entity-areas' {
  export const AREA_OF_KEY: Readonly<Record<string, string>>
  export const KEY_OF_PATH: Readonly<Record<string, string>>
  export const LOAD_AREA: Readonly<Record<string, () => Promise<Record<string, unknown>>>>
}

/** The URL of the menu icons' sprite (build/menuIconSprite.ts): one <symbol> per name of lib/menuIconNames.ts, its id the name. */
declare module 'virtual:velo-menu-icons' {
  const spriteUrl: string
  export default spriteUrl
}

/** The URL of antd's styles for the first screens, made at build time (build/antdStaticStyles.ts); null on the dev server and in Vitest. */
declare module 'virtual:velo-antd-styles' {
  const styleSheetUrl: string | null
  export default styleSheetUrl
}
