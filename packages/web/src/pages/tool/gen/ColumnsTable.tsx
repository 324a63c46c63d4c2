import { memo, useMemo, type ReactNode } from 'react'
import { Checkbox, Input, Select, Space, Table, Tag, Typography } from 'antd'
import type { ColumnType } from 'antd/es/table'
import { useQuery } from '@tanstack/react-query'
import { GEN_KINDS, GEN_SEARCH_MODES, systemEntities, type ApiRowOf, type GenColumn, type Paged } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { http } from '../../../api/http'
import { crudKeys } from '../../../crud/api/crudApi'

type DictTypeRow = Pick<ApiRowOf<typeof systemEntities.dictType>, 'dictType' | 'dictName'>

/** The engine's page size cap: more dictionary types than this is not a console anyone runs. */
const DICT_TYPES_PAGE = 500

/**
 * The dictionary types a `dict` column may use, from the dictionary page's own list. Silent: a user
 * who may not list dictionaries still edits everything else (the select stays empty).
 */
function useDictTypes() {
  const dictType = systemEntities.dictType
  return useQuery({
    queryKey: [...crudKeys.all(dictType), 'genDictTypes'],
    queryFn: () => http.post<Paged<DictTypeRow>>(`${dictType.path}/list`, { pageNum: 1, pageSize: DICT_TYPES_PAGE }, { silent: true }),
    staleTime: 60_000,
  })
}

type Flag = 'required' | 'list' | 'form' | 'export'
const FLAGS: readonly Flag[] = ['required', 'list', 'form', 'export']

export interface ColumnsTableProps {
  columns: readonly GenColumn[]
  onChange: (column: string, patch: Partial<GenColumn>) => void
  /** The server's field errors by path ('columns.2.name'). */
  errors: ReadonlyMap<string, string>
}

/**
 * The per-column settings (RuoYi's 字段信息): the database column and type as read, then the field
 * name, its labels in both languages, kind, flags, search mode and dictionary, each editable in place.
 */
export const ColumnsTable = memo(function ColumnsTable({ columns, onChange, errors }: ColumnsTableProps) {
  const { t, i18n } = useTranslation()
  const dictTypes = useDictTypes()
  const language = i18n.language
  const kindOptions = useMemo(() => GEN_KINDS.map((kind) => ({ value: kind, label: t(`gen.kind.${kind}`) })), [t, language])
  const searchOptions = useMemo(() => GEN_SEARCH_MODES.map((mode) => ({ value: mode, label: t(`gen.search.${mode || 'none'}`) })), [t, language])
  const dictOptions = useMemo(
    () => (dictTypes.data?.rows ?? []).map((row) => ({ value: row.dictType, label: `${row.dictName} (${row.dictType})` })),
    [dictTypes.data],
  )
  const indexOf = useMemo(() => new Map(columns.map((c, i) => [c.column, i])), [columns])

  /** The accessible name of one cell's input: "Field name of user_name". */
  const aria = (field: string, column: string) => t('gen.cellAria', { field: t(`gen.col.${field}`), column })
  const errorOf = (column: string, field: string) => errors.get(`columns.${indexOf.get(column)}.${field}`)
  const withError = (input: ReactNode, message: string | undefined) => (
    <>
      {input}
      {message && (
        <Typography.Text type="danger" style={{ display: 'block', fontSize: 12 }}>
          {message}
        </Typography.Text>
      )}
    </>
  )

  const textCell = (field: 'name', width: number): ColumnType<GenColumn> => ({
    key: field,
    title: t(`gen.col.${field}`),
    width,
    render: (_, c) =>
      withError(
        <Input size="small" value={c[field]} status={errorOf(c.column, field) ? 'error' : undefined} aria-label={aria(field, c.column)} onChange={(e) => onChange(c.column, { [field]: e.target.value })} />,
        errorOf(c.column, field),
      ),
  })

  const labelCell = (language: 'en_US' | 'zh_CN', width: number): ColumnType<GenColumn> => {
    const field = language === 'en_US' ? 'labelEn' : 'labelZh'
    return {
      key: field,
      title: t(`gen.col.${field}`),
      width,
      render: (_, c) => {
        const error = errorOf(c.column, `label.${language}`)
        return withError(
          <Input
            size="small"
            value={c.label[language]}
            status={error ? 'error' : undefined}
            aria-label={aria(field, c.column)}
            onChange={(e) => onChange(c.column, { label: { ...c.label, [language]: e.target.value } })}
          />,
          error,
        )
      },
    }
  }

  const flagCell = (flag: Flag): ColumnType<GenColumn> => ({
    key: flag,
    title: t(`gen.col.${flag}`),
    width: 64,
    align: 'center',
    render: (_, c) => <Checkbox checked={c[flag]} aria-label={aria(flag, c.column)} onChange={(e) => onChange(c.column, { [flag]: e.target.checked })} />,
  })

  const tableColumns: ColumnType<GenColumn>[] = [
    {
      key: 'column',
      title: t('gen.col.column'),
      width: 170,
      fixed: 'left',
      render: (_, c) => (
        <Space orientation="vertical" size={0}>
          <Space size={4}>
            <Typography.Text code>{c.column}</Typography.Text>
            {c.primaryKey && <Tag color="gold">{t('gen.primaryKey')}</Tag>}
          </Space>
          {c.comment && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }} ellipsis={{ tooltip: c.comment }}>
              {c.comment}
            </Typography.Text>
          )}
        </Space>
      ),
    },
    { key: 'dbType', title: t('gen.col.dbType'), width: 110, render: (_, c) => <Typography.Text type="secondary">{c.dbType}</Typography.Text> },
    textCell('name', 150),
    labelCell('en_US', 150),
    labelCell('zh_CN', 130),
    {
      key: 'kind',
      title: t('gen.col.kind'),
      width: 130,
      render: (_, c) =>
        withError(
          <Select
            size="small"
            style={{ width: '100%' }}
            value={c.kind}
            options={kindOptions}
            status={errorOf(c.column, 'kind') ? 'error' : undefined}
            id={`gen-kind-${c.column}`}
            aria-label={aria('kind', c.column)}
            popupMatchSelectWidth={false}
            onChange={(kind) => onChange(c.column, { kind })}
          />,
          errorOf(c.column, 'kind'),
        ),
    },
    ...FLAGS.map(flagCell),
    {
      key: 'search',
      title: t('gen.col.search'),
      width: 110,
      render: (_, c) =>
        withError(
          <Select
            size="small"
            style={{ width: '100%' }}
            value={c.search}
            options={searchOptions}
            status={errorOf(c.column, 'search') ? 'error' : undefined}
            id={`gen-search-${c.column}`}
            aria-label={aria('search', c.column)}
            onChange={(search) => onChange(c.column, { search })}
          />,
          errorOf(c.column, 'search'),
        ),
    },
    {
      key: 'dict',
      title: t('gen.col.dict'),
      width: 190,
      render: (_, c) =>
        withError(
          <Select
            size="small"
            style={{ width: '100%' }}
            value={c.dict || undefined}
            options={dictOptions}
            status={errorOf(c.column, 'dict') ? 'error' : undefined}
            disabled={c.kind !== 'dict'}
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            loading={dictTypes.isPending && c.kind === 'dict'}
            placeholder={c.kind === 'dict' ? t('gen.dictPlaceholder') : undefined}
            id={`gen-dict-${c.column}`}
            aria-label={aria('dict', c.column)}
            popupMatchSelectWidth={false}
            onChange={(dict?: string) => onChange(c.column, { dict: dict ?? '' })}
          />,
          errorOf(c.column, 'dict'),
        ),
    },
  ]

  return (
    <div data-testid="gen-columns">
      <Table<GenColumn>
        size="small"
        rowKey="column"
        columns={tableColumns}
        dataSource={columns as GenColumn[]}
        pagination={false}
        scroll={{ x: 'max-content', y: 'calc(100vh - 360px)' }}
      />
    </div>
  )
})
