/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_PREFIX?: string
  readonly VITE_API_HOST?: string
}
