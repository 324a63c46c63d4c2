import { useEffect, useMemo, useRef, useState } from 'react'
import { useNavigate } from 'react-router'
import { Select, type RefSelectProps } from 'antd'
import { SearchOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { translateTitle } from '../../i18n'
import { searchEntries, type SearchEntry } from '../../routes/menuSearch'
import { isExternal } from '../../routes/routeModel'
import { useRouteTable } from '../../routes/routeTable'

/** The navbar's menu search: an icon that opens a fuzzy search box over every visible route. */
export function MenuSearch() {
  const { t } = useTranslation()
  const table = useRouteTable()
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState('')
  const selectRef = useRef<RefSelectProps>(null)
  // The matcher (Fuse) loads when the search first opens: every page's first paint waits for the shell.
  const [search, setSearch] = useState<((query: string) => SearchEntry[]) | null>(null)
  useEffect(() => {
    if (!open) return
    let current = true
    void import('../../routes/menuSearcher').then(({ createMenuSearcher }) => {
      if (current) setSearch(() => createMenuSearcher(searchEntries(table.tree, translateTitle)))
    })
    return () => {
      current = false
    }
  }, [open, table.tree])

  // What was typed before the matcher arrived is searched as soon as it does.
  const results = useMemo(() => (search ? search(query) : []), [search, query])

  function choose(path: string) {
    setQuery('')
    setOpen(false)
    if (isExternal(path)) window.open(path, '_blank', 'noopener')
    else navigate(path)
  }

  function show() {
    setOpen(true)
    setTimeout(() => selectRef.current?.focus(), 0)
  }

  return (
    <div className={`header-search ${open ? 'show' : ''}`}>
      <SearchOutlined className="navbar-icon" onClick={() => (open ? setOpen(false) : show())} aria-label={t('navbar.searchMenu')} data-testid="menu-search-toggle" />
      {open && (
        <Select<string | null>
          ref={selectRef}
          className="header-search-select"
          data-testid="menu-search"
          placeholder={t('navbar.searchMenu')}
          value={null}
          showSearch={{ filterOption: false, onSearch: setQuery }}
          defaultActiveFirstOption
          suffixIcon={null}
          notFoundContent={null}
          options={results.map((r) => ({ value: r.path, label: r.title.join(' > ') }))}
          onSelect={(path) => path && choose(path)}
          onBlur={() => setOpen(false)}
          style={{ width: 220 }}
        />
      )}
    </div>
  )
}
