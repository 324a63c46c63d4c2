import { describe, expect, it } from 'vitest'
import {
  addView,
  delAllViews,
  delOthersViews,
  delView,
  emptyTags,
  nextAfterClose,
  updateVisitedView,
  type VisitedView,
} from './tagsModel'

const view = (path: string, extra: Partial<VisitedView> = {}): VisitedView => ({
  path,
  fullPath: path,
  name: path.slice(1),
  title: `t${path}`,
  noClose: false,
  noCache: false,
  ...extra,
})

const dashboard = view('/dashboard', { name: 'Dashboard', noClose: true, noCache: true })

function opened(...views: VisitedView[]) {
  return views.reduce(addView, emptyTags())
}

describe('tags view', () => {
  it('adds each path once and caches unless noCache', () => {
    const state = opened(dashboard, view('/a'), view('/a', { fullPath: '/a?x=1' }), view('/b', { noCache: true }))
    expect(state.visitedViews.map((v) => v.path)).toEqual(['/dashboard', '/a', '/b'])
    expect(state.visitedViews[1]!.fullPath).toBe('/a')
    expect(state.cachedViews).toEqual(['/a'])
  })

  it('names untitled views no-name', () => {
    expect(opened(view('/c', { title: '' })).visitedViews[0]!.title).toBe('no-name')
  })

  it('deletes one view and its cache', () => {
    const state = delView(opened(view('/a'), view('/b')), { path: '/a' })
    expect(state.visitedViews.map((v) => v.path)).toEqual(['/b'])
    expect(state.cachedViews).toEqual(['/b'])
  })

  it('close others keeps pinned views and the chosen one', () => {
    const state = delOthersViews(opened(dashboard, view('/a'), view('/b'), view('/c')), { path: '/b' })
    expect(state.visitedViews.map((v) => v.path)).toEqual(['/dashboard', '/b'])
    expect(state.cachedViews).toEqual(['/b'])
  })

  it('close all keeps pinned views only', () => {
    const state = delAllViews(opened(dashboard, view('/a')))
    expect(state.visitedViews.map((v) => v.path)).toEqual(['/dashboard'])
    expect(state.cachedViews).toEqual([])
  })

  it('merges updates by path', () => {
    const state = updateVisitedView(opened(view('/a')), { path: '/a', fullPath: '/a?page=2' })
    expect(state.visitedViews[0]).toMatchObject({ path: '/a', fullPath: '/a?page=2', title: 't/a' })
  })

  it('after closing the active tab goes to the last tab, else reloads the dashboard, else /', () => {
    expect(nextAfterClose([dashboard, view('/a', { fullPath: '/a?q=1' })], view('/b'))).toBe('/a?q=1')
    expect(nextAfterClose([], dashboard)).toBe('/redirect/dashboard')
    expect(nextAfterClose([], view('/b'))).toBe('/')
  })
})
