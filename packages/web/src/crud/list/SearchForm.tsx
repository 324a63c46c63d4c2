import { useMemo, useState } from 'react'
import { Button, Space } from 'antd'
import { DownOutlined, ReloadOutlined, SearchOutlined, UpOutlined } from '@ant-design/icons'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import type { Filters, Row } from '../api/crudApi'
import { kindOf } from '../kinds/kindTable'
import { OtherFieldsContext, type OtherFields } from '../kinds/otherFields'
import type { InputRenderer } from '../kinds/types'
import { FieldControl } from '../form/FieldControl'
import { filtersFrom, type SearchField } from './searchFields'
import { searchInputFor } from './searchInputs'

/** Fields shown before "More" unfolds the rest. */
const FOLDED_COUNT = 3

export interface SearchFormProps {
  entity: ResolvedEntity
  fields: readonly SearchField[]
  /** Inputs in place of the generated ones, by field name. */
  inputs?: Readonly<Record<string, InputRenderer>>
  /** Search or Reset: the list call's filters, and the form's values they came from (the list's URL says those). */
  onSearch: (filters: Filters, values: Row) => void
  /** The values the form opens with (the filters of the list's URL). */
  initialValues?: Row
}

/** What an antd control's onChange hands over: the event of a text box, the value of the others. */
const valueOf = (change: unknown): unknown =>
  change && typeof change === 'object' && 'target' in change && change.target && typeof change.target === 'object' && 'value' in change.target ? change.target.value : change

/**
 * The search form above a list; Search applies the filters from the first page, Reset clears them.
 * A plain form, not antd's: its fields need no rules, and antd's form kit (with its validator) then
 * loads only when an add/modify form or a step's dialog opens, not with every list's first paint.
 */
export function SearchForm({ entity, fields, inputs = {}, onSearch, initialValues }: SearchFormProps) {
  const { t } = useTranslation()
  // Every field's value, the folded fields' too. It opens with the URL's filters; Reset empties it
  // (the page mounts the form again, with a new key, when its URL names other filters).
  const [values, setValues] = useState<Row>(() => ({ ...initialValues }))
  const foldable = fields.length > FOLDED_COUNT + 1
  // A filter from the URL on a folded field would be applied unseen: the form opens unfolded then.
  const [unfolded, setUnfolded] = useState(() => foldable && fields.some(({ field }, i) => i >= FOLDED_COUNT && initialValues?.[field.name] !== undefined))
  const otherFields = useMemo<OtherFields>(() => ({ get: (name) => values[name] }), [values])
  if (fields.length === 0) return null
  // Named, so its inputs' ids do not clash with the same fields in the add/modify form.
  const idOf = (name: string) => `${entity.key}-search_${name}`

  return (
    <OtherFieldsContext.Provider value={otherFields}>
      <form
        className="crud-search"
        onSubmit={(event) => {
          event.preventDefault()
          onSearch(filtersFrom(fields, values), values)
        }}
        data-testid="crud-search"
      >
        {fields.map(({ field, mode }, index) => {
          const normalize = kindOf(field).normalize
          return (
            // Folded fields stay mounted, so a filter set before folding is still visible when unfolded.
            <div key={field.name} className="crud-search-item" hidden={foldable && !unfolded && index >= FOLDED_COUNT}>
              <label className="crud-search-label" htmlFor={idOf(field.name)}>
                {localized(field.label)}
              </label>
              <div className="crud-search-control">
                <FieldControl
                  entity={entity}
                  field={field}
                  input={searchInputFor(field, mode)}
                  override={inputs[field.name]}
                  id={idOf(field.name)}
                  value={values[field.name]}
                  onChange={(change: unknown) => {
                    const value = valueOf(change)
                    setValues((before) => ({ ...before, [field.name]: normalize ? normalize(value) : value }))
                  }}
                />
              </div>
            </div>
          )
        })}
        <div className="crud-search-item">
          <Space>
            <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid="crud-search-submit">
              {t('crud.search')}
            </Button>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => {
                setValues({})
                onSearch({}, {})
              }}
              data-testid="crud-search-reset"
            >
              {t('crud.reset')}
            </Button>
            {foldable && (
              <Button type="link" onClick={() => setUnfolded(!unfolded)} icon={unfolded ? <UpOutlined /> : <DownOutlined />} iconPlacement="end">
                {t(unfolded ? 'crud.fewerFilters' : 'crud.moreFilters')}
              </Button>
            )}
          </Space>
        </div>
      </form>
    </OtherFieldsContext.Provider>
  )
}
