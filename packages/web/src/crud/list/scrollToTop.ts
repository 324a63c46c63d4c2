/** The element that scrolls `el` (the layout's content area), or the document. */
export function scrollParentOf(el: HTMLElement | null): HTMLElement {
  for (let node = el?.parentElement; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node)
    if ((overflowY === 'auto' || overflowY === 'scroll') && node.scrollHeight > node.clientHeight) return node
  }
  return (document.scrollingElement as HTMLElement | null) ?? document.documentElement
}

const easeInOutQuad = (t: number) => (t < 0.5 ? 2 * t * t : -1 + (4 - 2 * t) * t)

/** SPEC §9: after a page change the content scrolls back to the top, smoothly, over 800 ms. */
export function scrollToTop(from: HTMLElement | null, duration = 800): void {
  const target = scrollParentOf(from)
  const start = target.scrollTop
  if (start === 0) return
  const began = performance.now()
  const step = (now: number) => {
    const progress = Math.min(1, (now - began) / duration)
    target.scrollTop = start * (1 - easeInOutQuad(progress))
    if (progress < 1) requestAnimationFrame(step)
  }
  requestAnimationFrame(step)
}
