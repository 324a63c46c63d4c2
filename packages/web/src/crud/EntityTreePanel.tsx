import { useMemo, useState, type Key } from 'react'
import { Spin, Tree } from 'antd'
// antd's search box alone: `Input` from 'antd' carries its text area and one-time-code boxes along, which
// a list's first paint does not show (they load with the forms and pages that use them).
import Search from 'antd/es/input/Search'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../i18n'
import { toDataNodes, useEntityChoices, type TreeOption } from './kinds/options'

/** Nodes whose title has the text, with the ancestors that lead to them. */
function keepMatching(nodes: readonly TreeOption[], text: string): TreeOption[] {
  return nodes.flatMap((n) => {
    const children = keepMatching(n.children ?? [], text)
    return n.title.toLowerCase().includes(text) || children.length ? [{ ...n, children: children.length ? children : undefined }] : []
  })
}

export interface EntityTreePanelProps {
  /** A tree entity (one with a treeParent field). */
  entity: ResolvedEntity
  /** The selected node's id. */
  value?: unknown
  /** Called with the picked node's id, or undefined when the selection is cleared. */
  onChange: (id: unknown) => void
}

/**
 * A tree entity's nodes to pick one from, with a filter box: the `left` slot of a list whose rows
 * belong to its nodes (departments beside users). Picking the selected node again clears it.
 */
export function EntityTreePanel({ entity, value, onChange }: EntityTreePanelProps) {
  const { t } = useTranslation()
  const [text, setText] = useState('')
  const { tree, loading } = useEntityChoices(entity)
  const treeData = useMemo(() => toDataNodes(keepMatching(tree ?? [], text.trim().toLowerCase())), [tree, text])
  const labelField = entity.fieldMap.get(entity.labelField)
  return (
    <div data-testid={`tree-panel-${entity.key}`}>
      <Search
        allowClear
        placeholder={labelField ? t('crud.enter', { label: localized(labelField.label) }) : undefined}
        onChange={(e) => setText(e.target.value)}
        style={{ marginBottom: 8 }}
      />
      {loading ? (
        <Spin size="small" />
      ) : (
        // Remounted per filter text so every match is shown unfolded.
        <Tree
          key={text}
          blockNode
          defaultExpandAll
          treeData={treeData}
          selectedKeys={value === undefined ? [] : [value as Key]}
          onSelect={(keys) => onChange(keys[0])}
        />
      )}
    </div>
  )
}
