import { addTexts, loadLanguage } from '../i18n'
import { TEXTS_FILES } from './texts'
import { afterEach } from 'vitest'
import { cleanup, configure } from '@testing-library/react'

// Testing Library unmounts after each test only with vitest globals on; this suite imports them.
afterEach(cleanup)

// findBy…/waitFor give up after 1 s by default. A page's lazy parts (the form, the details, the
// inputs) are imports that take longer than that on a 2-core machine running other work, and a
// test then failed at a different step each run; 5 s still fails fast on a real regression.
configure({ asyncUtilTimeout: 5000 })

// The messages' and dialogs' holders load on first use in the app (lib/feedback.tsx); here they are
// imported up front, as antd's App was, so a test's first confirmation does not wait for antd's
// Modal to be transformed within its find's time.
await import('../lib/FeedbackHolders')

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

// jsdom computes no pseudo-elements and says so on the console at every call; antd asks for
// '::-webkit-scrollbar' to measure scrollbars (rc-util getScrollBarSize), hundreds of times per run.
// Nothing is laid out in jsdom, so the element's own style is as good an answer and the line is noise.
const computedStyle = window.getComputedStyle.bind(window)
window.getComputedStyle = (element: Element, pseudo?: string | null) => computedStyle(element, pseudo ? undefined : pseudo)

// The Chinese catalogue is loaded on demand in the browser (i18n/loadLanguage); tests switch languages freely.
await loadLanguage('zh_CN')
// So are the areas' texts, with their pages (routes/pageTexts.ts); tests render pages and their parts directly.
for (const { language, texts } of TEXTS_FILES) addTexts(language, texts)
