import { useEffect, useRef } from 'react'
import { Dropdown } from 'antd'
import { CloseOutlined } from '@ant-design/icons'
import { useLocation, useNavigate } from 'react-router'
import { useTranslation } from 'react-i18next'
import { translateTitle } from '../../i18n'
import { useRefreshView } from '../useRefreshView'
import { nextAfterClose, type VisitedView } from './tagsModel'
import { tagsActions, tagsStore } from './tagsStore'

/** One tab per visited page, with a context menu: refresh, close, close others, close all. */
export function TagsView() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const visited = tagsStore.use((s) => s.visitedViews)
  const { refresh } = useRefreshView()
  const scroller = useRef<HTMLDivElement>(null)

  useEffect(() => {
    scroller.current?.querySelector('.tags-view-item.active')?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' })
  }, [pathname, visited.length])

  const isActive = (view: VisitedView) => view.path === pathname

  function close(view: VisitedView) {
    if (view.noClose) return
    tagsActions.del(view)
    if (isActive(view)) navigate(nextAfterClose(tagsStore.getState().visitedViews, view))
  }

  function closeOthers(view: VisitedView) {
    if (!isActive(view)) navigate(view.fullPath)
    tagsActions.delOthers(view)
  }

  function closeAll(view: VisitedView) {
    tagsActions.delAll()
    const remaining = tagsStore.getState().visitedViews
    // Staying on a pinned page is fine; otherwise leave the page whose tab just closed.
    if (remaining.some((v) => v.path === pathname)) return
    navigate(nextAfterClose(remaining, view))
  }

  return (
    <div className="tags-view-container" data-testid="tags-view">
      <div className="tags-view-wrapper" ref={scroller}>
        {visited.map((view) => (
          <Dropdown
            key={view.path}
            trigger={['contextMenu']}
            menu={{
              items: [
                { key: 'refresh', label: t('tagsView.refresh') },
                ...(view.noClose ? [] : [{ key: 'close', label: t('tagsView.close') }]),
                { key: 'closeOthers', label: t('tagsView.closeOthers') },
                { key: 'closeAll', label: t('tagsView.closeAll') },
              ],
              onClick: ({ key }) => {
                if (key === 'refresh') {
                  if (isActive(view)) refresh(view.fullPath)
                  else {
                    tagsActions.delCached(view.path)
                    navigate(`/redirect${view.fullPath}`)
                  }
                } else if (key === 'close') close(view)
                else if (key === 'closeOthers') closeOthers(view)
                else closeAll(view)
              },
            }}
          >
            <span
              className={`tags-view-item ${isActive(view) ? 'active' : ''}`}
              data-path={view.path}
              role="link"
              tabIndex={0}
              onClick={() => navigate(view.fullPath)}
              onKeyDown={(e) => e.key === 'Enter' && navigate(view.fullPath)}
              onMouseUp={(e) => e.button === 1 && close(view)}
            >
              {translateTitle(view.title)}
              {!view.noClose && (
                <CloseOutlined
                  className="tags-view-close"
                  aria-label={t('tagsView.close')}
                  onClick={(e) => {
                    e.stopPropagation()
                    close(view)
                  }}
                />
              )}
            </span>
          </Dropdown>
        ))}
      </div>
    </div>
  )
}
