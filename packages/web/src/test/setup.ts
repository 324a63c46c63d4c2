import { afterEach } from 'vitest'
import { cleanup } from '@testing-library/react'

// Testing Library unmounts after each test only with vitest globals on; this suite imports them.
afterEach(cleanup)

// jsdom lacks matchMedia, which antd's responsive helpers read on import.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList
}

// jsdom lacks ResizeObserver, which antd's tables, tabs and overflow lists observe; nothing resizes in tests.
if (!globalThis.ResizeObserver) {
  globalThis.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
}
