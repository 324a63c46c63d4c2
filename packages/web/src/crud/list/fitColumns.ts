import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react'

// A table wider than its box scrolls under the fixed Actions column. Left as it is, the column that
// reaches the Actions column shows cut at its edge ("Sta…" under Actions): the reader cannot tell
// what it is. The last column that fits takes the room left over, so the next one starts where the
// Actions column does: every column shows whole, or waits whole for the scroll.

/** The extra width one column takes, by its key. */
export interface Stretch {
  key: string
  extra: number
  /** The column's own padding at the end of a cell, which the extra adds to. */
  pad?: number
}

/**
 * Which column to widen, and by how much, so that the columns that fit in `room` end exactly at its
 * edge: `columns` are the scrolling columns' natural widths in order (key `null` for the kit's own,
 * the selection box). Nothing when all fit, none fits, or the last that fits is not a data column.
 */
export function stretchToFit(columns: readonly { key: string | null; width: number }[], room: number): Stretch | null {
  const total = columns.reduce((sum, c) => sum + c.width, 0)
  if (total <= room + 0.5) return null
  let used = 0
  let last = -1
  for (const [i, c] of columns.entries()) {
    if (used + c.width > room + 0.5) break
    used += c.width
    last = i
  }
  const key = columns[last]?.key
  const extra = Math.floor(room - used)
  return key && extra >= 1 ? { key, extra } : null
}

const fixedEnd = (th: Element) => th.classList.contains('ant-table-cell-fix-right') || th.classList.contains('ant-table-cell-fix-end')

/** The data attribute each header cell of the list carries: its column's key. */
export const COLUMN_KEY_ATTRIBUTE = 'data-column-key'

/** Reads the header row of a rendered table: each scrolling column's natural width (the current stretch taken off) and the room they have. */
function measure(box: HTMLElement, current: Stretch | null): Stretch | null {
  const scroller = box.querySelector<HTMLElement>('.ant-table-content, .ant-table-body')
  const header = [...box.querySelectorAll<HTMLElement>('thead > tr:last-child > th')]
  const ends = header.filter(fixedEnd)
  if (!scroller || ends.length === 0) return null
  const room = scroller.clientWidth - ends.reduce((sum, th) => sum + th.getBoundingClientRect().width, 0)
  const columns = header
    .filter((th) => !fixedEnd(th))
    .map((th) => {
      const key = th.getAttribute(COLUMN_KEY_ATTRIBUTE)
      return { key, width: th.getBoundingClientRect().width - (current && key === current.key ? current.extra : 0) }
    })
  const stretch = stretchToFit(columns, room)
  if (!stretch) return null
  // The column's own padding, which ours replaces: kept while it is the widened one (it carries ours then).
  if (current && current.key === stretch.key) return { ...stretch, pad: current.pad }
  const th = header.find((h) => h.getAttribute(COLUMN_KEY_ATTRIBUTE) === stretch.key)
  return { ...stretch, pad: th ? parseFloat(getComputedStyle(th).paddingInlineEnd) || 0 : 0 }
}

// A pixel either way is the layout's rounding of fractional widths, not a change.
const same = (a: Stretch | null, b: Stretch | null) => a === b || (!!a && !!b && a.key === b.key && Math.abs(a.extra - b.extra) <= 1)

/**
 * The stretch of the table inside `box`, measured after each render and whenever the box or the
 * table changes size (a dictionary's labels arriving widen a column without a render of the page).
 */
export function useStretchToFit(box: RefObject<HTMLElement | null>, enabled: boolean): Stretch | null {
  const [stretch, setStretch] = useState<Stretch | null>(null)
  // Compared before setting: a set state, even an equal one, renders again, and this runs after every render.
  const current = useRef(stretch)
  current.current = stretch
  // A layout that answers a stretch with another (a cell that would not take its width) is left as
  // it is after a few tries in a row rather than measured for ever: a cut column, not a dead page.
  const tries = useRef(0)
  const update = useCallback(() => {
    const root = box.current
    const next = enabled && root ? measure(root, current.current) : null
    if (same(next, current.current) || tries.current >= 4) return
    if (tries.current++ === 0) setTimeout(() => (tries.current = 0), 0)
    current.current = next
    setStretch(next)
  }, [box, enabled])
  useLayoutEffect(update)
  useEffect(() => {
    const root = box.current
    if (!root || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(update)
    observer.observe(root)
    const table = root.querySelector('table')
    if (table) observer.observe(table)
    return () => observer.disconnect()
  }, [box, update])
  return stretch
}

/** The widened column's cells: its extra width as padding at the end, on top of its own, so its natural width stays known. */
export function stretchedCellProps(stretch: Stretch): { style: { paddingInlineEnd: number } } {
  return { style: { paddingInlineEnd: (stretch.pad ?? 0) + stretch.extra } }
}
