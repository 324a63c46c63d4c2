import { useMemo, useState, type Key } from 'react'
import { Button, Input, Space, Tree, Typography } from 'antd'
import type { DataNode } from 'antd/es/tree'
import { useTranslation } from 'react-i18next'
import { allKeys, leafKeys, parentKeys, searchTree } from './checkTreeSearch'

export interface CheckTreeProps {
  /** The nodes, titles already in the user's language. */
  treeData: readonly DataNode[]
  /** The fully ticked keys (antd ticks the parents that follow from them). */
  checkedKeys: readonly Key[]
  /** The ticked keys and the half-ticked parents (some of their subtree ticked). */
  onCheck: (checked: Key[], halfChecked: Key[]) => void
  disabled?: boolean
  id?: string
  testId?: string
}

/** Hides a node the search leaves out, while it stays in the tree antd ticks through. */
const HIDDEN = 'crud-check-tree-hidden'

const withHidden = (nodes: readonly DataNode[], visible: ReadonlySet<Key> | null): DataNode[] =>
  nodes.map((n) => ({
    ...n,
    className: visible && !visible.has(n.key) ? HIDDEN : undefined,
    ...(n.children ? { children: withHidden(n.children, visible) } : {}),
  }))

/**
 * A checkable tree of a form (a role's ~450 menus and buttons, a role's departments) with what a long
 * tree needs above it: a search of the titles (a match shows with its path and everything below it),
 * expand and collapse all, select all and none, and how many are ticked. A search only hides nodes:
 * ticks made during it keep the others, and ticking a parent ticks its whole subtree as antd does.
 */
export function CheckTree({ treeData, checkedKeys, onCheck, disabled, id, testId }: CheckTreeProps) {
  const { t } = useTranslation()
  const [query, setQuery] = useState('')
  const everyKey = useMemo(() => allKeys(treeData), [treeData])
  const folders = useMemo(() => parentKeys(treeData), [treeData])
  // Opened whole at first, as before (a role's tree is read top to bottom).
  const [expanded, setExpanded] = useState<Key[]>(folders)
  const search = useMemo(() => searchTree(treeData, query), [treeData, query])
  const shown = useMemo(() => withHidden(treeData, search?.visible ?? null), [treeData, search])
  const leaves = useMemo(() => leafKeys(treeData), [treeData])
  // Counted in leaves (pages and buttons): a folder is ticked by what is below it.
  const ticked = new Set(checkedKeys)
  const tickedCount = leaves.filter((k) => ticked.has(k)).length

  const searchFor = (value: string) => {
    setQuery(value)
    const found = searchTree(treeData, value)
    // Each match opens where it is; clearing the search leaves the tree as the user opened it.
    if (found) setExpanded((open) => [...new Set([...open, ...found.expand])])
  }

  return (
    <div id={id} data-testid={testId} className="crud-check-tree-box">
      <Space wrap size={[8, 8]} className="crud-check-tree-tools">
        <Input.Search
          allowClear
          size="small"
          placeholder={t('crud.treeSearch')}
          value={query}
          onChange={(e) => searchFor(e.target.value)}
          style={{ width: 200 }}
          data-testid={testId && `${testId}-search`}
        />
        <Button size="small" onClick={() => setExpanded(folders)} data-testid={testId && `${testId}-expand`}>
          {t('crud.expandAll')}
        </Button>
        <Button size="small" onClick={() => setExpanded([])} data-testid={testId && `${testId}-collapse`}>
          {t('crud.collapseAll')}
        </Button>
        <Button size="small" disabled={disabled} onClick={() => onCheck(everyKey, [])} data-testid={testId && `${testId}-all`}>
          {t('crud.selectAll')}
        </Button>
        <Button size="small" disabled={disabled} onClick={() => onCheck([], [])} data-testid={testId && `${testId}-none`}>
          {t('crud.selectNone')}
        </Button>
        <Typography.Text type="secondary" data-testid={testId && `${testId}-count`}>
          {t('crud.treeTicked', { count: tickedCount, total: leaves.length })}
        </Typography.Text>
      </Space>
      <div className="crud-check-tree">
        <Tree
          checkable
          disabled={disabled}
          treeData={shown}
          expandedKeys={expanded}
          onExpand={(keys) => setExpanded(keys)}
          checkedKeys={checkedKeys as Key[]}
          onCheck={(checked, info) => onCheck(checked as Key[], info.halfCheckedKeys ?? [])}
          titleRender={(node) => (search?.matches.has(node.key) ? <mark className="crud-check-tree-match">{node.title as string}</mark> : (node.title as string))}
        />
        {search && search.matches.size === 0 && <Typography.Text type="secondary">{t('crud.treeNoMatch')}</Typography.Text>}
      </div>
    </div>
  )
}
