import { useEffect, useMemo, useState, type MouseEvent } from 'react'
import { useNavigate } from 'react-router'
import { Menu, Tooltip, type MenuProps } from 'antd'
import { useTranslation } from 'react-i18next'
import { translateTitle } from '../../i18n'
import { layoutStore } from '../../preferences/layoutStore'
import { settingsStore } from '../../preferences/settingsStore'
import { ancestorFolderKeys, type MenuEntry } from '../../routes/menuModel'
import { useCurrentPage } from '../useCurrentPage'
import { Logo } from './Logo'
import { MenuIcon } from '../../lib/menuIcons'

type Items = NonNullable<MenuProps['items']>

/**
 * A menu title; when the sidebar (or a collapsed sidebar's popup) cuts it ("Internationalis…"),
 * hovering shows the whole title beside it.
 */
export function MenuTitle({ text }: { text: string }) {
  const [open, setOpen] = useState(false)
  const onEnter = (e: MouseEvent<HTMLElement>) => {
    // antd ellipsises the title's box, the span's parent.
    const box = e.currentTarget.parentElement ?? e.currentTarget
    setOpen(box.scrollWidth > box.clientWidth + 1)
  }
  return (
    <Tooltip title={text} placement="right" open={open}>
      <span className="sidebar-title" onMouseEnter={onEnter} onMouseLeave={() => setOpen(false)}>
        {text}
      </span>
    </Tooltip>
  )
}

function toItems(entries: readonly MenuEntry[]): Items {
  return entries.map((entry) => ({
    key: entry.key,
    icon: <MenuIcon name={entry.icon} />,
    label: <MenuTitle text={translateTitle(entry.title)} />,
    children: entry.children ? toItems(entry.children) : undefined,
  }))
}

function findEntry(entries: readonly MenuEntry[], key: string): MenuEntry | undefined {
  for (const entry of entries) {
    if (entry.key === key) return entry
    const inside = entry.children && findEntry(entry.children, key)
    if (inside) return inside
  }
  return undefined
}

/** The menu from the route table; the active item follows meta.activeMenu, else the path. */
export function Sidebar() {
  const { table, current } = useCurrentPage()
  const opened = layoutStore.use((s) => s.sidebarOpened)
  const device = layoutStore.use((s) => s.device)
  const showLogo = settingsStore.use((s) => s.sidebarLogo)
  const navigate = useNavigate()
  useTranslation() // re-render on language change
  const collapsed = !opened && device === 'desktop'
  const activeKey = current?.page.meta.activeMenu ?? current?.page.path ?? ''
  const items = useMemo(() => toItems(table.menu), [table.menu])

  const [openKeys, setOpenKeys] = useState<string[]>(() => ancestorFolderKeys(table.menu, activeKey))
  useEffect(() => {
    // Open the folders around the page we navigated to, keeping the ones the user opened.
    const around = ancestorFolderKeys(table.menu, activeKey)
    setOpenKeys((keys) => [...new Set([...keys, ...around])])
  }, [table.menu, activeKey])

  const onClick: MenuProps['onClick'] = ({ key }) => {
    const entry = findEntry(table.menu, key)
    if (!entry) return
    if (entry.external) window.open(entry.path, '_blank', 'noopener')
    else navigate(entry.path)
  }

  return (
    <aside className="sidebar-container" data-testid="sidebar">
      {showLogo && <Logo collapsed={collapsed} />}
      <div className="sidebar-menu-scroll">
        <Menu
          // Remount when collapsing: inline and collapsed menus keep their open submenus differently.
          key={collapsed ? 'collapsed' : 'inline'}
          mode="inline"
          theme="dark"
          inlineCollapsed={collapsed}
          inlineIndent={20}
          items={items}
          selectedKeys={[activeKey]}
          {...(collapsed ? {} : { openKeys, onOpenChange: setOpenKeys })}
          onClick={onClick}
        />
      </div>
    </aside>
  )
}
