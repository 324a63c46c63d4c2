import { createStore } from '../../lib/createStore'
import { TAGS_VIEW_KEY } from '../../lib/config'
import * as model from './tagsModel'
import type { TagsState, VisitedView } from './tagsModel'

// Open tabs survive a page reload in the same browser tab (sessionStorage). Cached pages do not
// survive a reload (there is nothing mounted to keep), so only the visited list is stored.

function load(): TagsState {
  try {
    const raw = sessionStorage.getItem(TAGS_VIEW_KEY)
    const visited = raw ? (JSON.parse(raw) as VisitedView[]) : []
    return { visitedViews: Array.isArray(visited) ? visited : [], cachedViews: [] }
  } catch {
    return model.emptyTags()
  }
}

export const tagsStore = createStore<TagsState>(load())

tagsStore.subscribe(() => {
  try {
    sessionStorage.setItem(TAGS_VIEW_KEY, JSON.stringify(tagsStore.getState().visitedViews))
  } catch {
    // Storage full or blocked: tabs just won't survive a reload.
  }
})

const apply = (transition: (s: TagsState) => TagsState) => tagsStore.setState(transition(tagsStore.getState()))

export const tagsActions = {
  add: (view: VisitedView) => apply((s) => model.addView(s, view)),
  del: (view: Pick<VisitedView, 'path'>) => apply((s) => model.delView(s, view)),
  delOthers: (view: Pick<VisitedView, 'path'>) => apply((s) => model.delOthersViews(s, view)),
  delAll: () => apply(model.delAllViews),
  delCached: (path: string) => apply((s) => model.delCachedView(s, path)),
  delAllCached: () => apply(model.delAllCachedViews),
  update: (view: Partial<VisitedView> & { path: string }) => apply((s) => model.updateVisitedView(s, view)),
  /** Sign-out forgets the tabs of the previous user. */
  reset: () => tagsStore.setState(model.emptyTags()),
}
