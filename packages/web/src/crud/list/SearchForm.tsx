import { useEffect, useState } from 'react'
import { Button, Form, Space } from 'antd'
import { DownOutlined, ReloadOutlined, SearchOutlined, UpOutlined } from '@ant-design/icons'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import type { Filters, Row } from '../api/crudApi'
import { kindOf } from '../kinds/kindTable'
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
  onSearch: (filters: Filters) => void
  /** The values the form opens with (the filters of the list's URL). */
  initialValues?: Row
}

/** The search form above a list; Search applies the filters from the first page, Reset clears them. */
export function SearchForm({ entity, fields, inputs = {}, onSearch, initialValues }: SearchFormProps) {
  const { t } = useTranslation()
  const [form] = Form.useForm<Row>()
  const foldable = fields.length > FOLDED_COUNT + 1
  // A filter from the URL on a folded field would be applied unseen: the form opens unfolded then.
  const [unfolded, setUnfolded] = useState(() => foldable && fields.some(({ field }, i) => i >= FOLDED_COUNT && initialValues?.[field.name] !== undefined))
  // Set once mounted rather than as the form's initial values, so Reset still empties the form.
  useEffect(() => {
    if (initialValues && fields.length) form.setFieldsValue(initialValues)
    // The page mounts the form again (a new key) when its URL names other filters.
  }, [])
  if (fields.length === 0) return null

  return (
    <Form<Row>
      form={form}
      // Named, so its inputs' ids do not clash with the same fields in the add/modify form.
      name={`${entity.key}-search`}
      layout="inline"
      className="crud-search"
      onFinish={() => onSearch(filtersFrom(fields, form.getFieldsValue(true)))}
      data-testid="crud-search"
    >
      {fields.map(({ field, mode }, index) => (
        // Folded fields stay mounted, so a filter set before folding is still visible when unfolded.
        <Form.Item
          key={field.name}
          name={field.name}
          label={localized(field.label)}
          hidden={foldable && !unfolded && index >= FOLDED_COUNT}
          normalize={kindOf(field).normalize}
        >
          <FieldControl entity={entity} field={field} input={searchInputFor(field, mode)} override={inputs[field.name]} />
        </Form.Item>
      ))}
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid="crud-search-submit">
            {t('crud.search')}
          </Button>
          <Button
            icon={<ReloadOutlined />}
            onClick={() => {
              form.resetFields()
              onSearch({})
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
      </Form.Item>
    </Form>
  )
}
