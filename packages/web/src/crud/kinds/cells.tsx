import { lazy, Suspense } from 'react'
import { Space, Spin, Tag } from 'antd'
import { FileImageOutlined, PaperClipOutlined } from '@ant-design/icons'
import dayjs from 'dayjs'
import { durationUnitOf } from '@velo/shared'
import { durationUnitWord, formatCount, formatDurationIn } from '../../i18n/numbers'
import { downloadEntityFile, isVideoFile, storedBaseName, useStoredImageUrl } from '../api/files'
import { useFieldOptions } from './options'
import type { CellProps } from './types'
import { PlayVideoLink } from './VideoPlayer'
import { Masked } from '../privacy/Masked'
import { labelCategoryOf } from '../privacy/personal'

// antd's Image (its preview with zoom and rotation) loads with the first image a list shows, while the
// image itself is fetched: most lists show none, and the rows of the others need it only then.
const Image = lazy(() => import('antd/es/image'))

// List cells, one per way a value is shown; the kind table picks one for each kind.

const isBlank = (value: unknown) => value === null || value === undefined || value === ''
const shown = (value: unknown) => (isBlank(value) ? null : String(value))

export function PlainCell({ value }: CellProps) {
  return shown(value)
}

/** Long text stays on one line in a list; the whole text is in the tooltip. */
export function ClippedCell({ value }: CellProps) {
  const text = shown(value)
  return text === null ? null : (
    <span className="crud-cell-clip" title={text}>
      {text}
    </span>
  )
}

/**
 * A number; a duration (the field's `duration` unit) reads as one, "1 h 12 min" or "1小时12分", with
 * the stored number and its unit in the tooltip.
 */
export function NumberCell({ field, value }: CellProps) {
  const unit = durationUnitOf(field)
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN
  if (!unit || !Number.isFinite(n)) return shown(value)
  return (
    <span className="crud-cell-duration" title={`${formatCount(n)} ${durationUnitWord(unit)}`}>
      {formatDurationIn(n, unit)}
    </span>
  )
}

export function MoneyCell({ value }: CellProps) {
  return typeof value === 'number' ? value.toFixed(2) : shown(value)
}

const formatCell = (format: string) =>
  function DateCell({ value }: CellProps) {
    return isBlank(value) ? null : dayjs(value as string).format(format)
  }

export const DATE_FORMAT = 'YYYY-MM-DD'
export const DATETIME_FORMAT = 'YYYY-MM-DD HH:mm:ss'
export const DateCell = formatCell(DATE_FORMAT)
/** Stored in UTC, shown in the browser's time zone. */
export const DateTimeCell = formatCell(DATETIME_FORMAT)

/** Values with choices: a tag in the choice's colour, or plain text for a choice without one. */
export function OptionsCell({ entity, field, value, row }: CellProps) {
  const { options } = useFieldOptions(entity, field)
  if (isBlank(value)) return null
  const values = Array.isArray(value) ? value : [value]
  // A row read by id carries its links' labels (`<name>Labels`, same order): the picker's list is capped.
  const carried = field.kind === 'referenceMany' && Array.isArray(row?.[`${field.name}Labels`]) ? (row[`${field.name}Labels`] as (string | null)[]) : null
  return (
    <>
      {values.map((v, i) => {
        const option = options.find((o) => o.value === v || String(o.value) === String(v))
        const label = carried?.[i] ?? option?.label ?? String(v)
        return option?.color || values.length > 1 ? (
          <Tag key={String(v)} color={option?.color}>
            {label}
          </Tag>
        ) : (
          <span key={String(v)}>{label}</span>
        )
      })}
      {/* A list carries the first links of a long list, and how many there are. */}
      {Number(row?.[`${field.name}Total`]) > values.length && <Tag>+{Number(row[`${field.name}Total`]) - values.length}</Tag>}
    </>
  )
}

/**
 * Lists carry the referenced row's label beside the id (`<name>Label`). A label naming a rider (a
 * ride's member, by e-mail) comes masked to a user without the category's right, and says so.
 */
export function ReferenceCell({ field, value, row }: CellProps) {
  const label = row[`${field.name}Label`]
  const category = labelCategoryOf(field)
  if (category && typeof label === 'string' && label !== '') return <Masked category={category} value={label} label />
  return shown(isBlank(label) ? value : label)
}

export function ImageCell({ value }: CellProps) {
  const name = typeof value === 'string' && value ? value : null
  const image = useStoredImageUrl(name)
  if (!name) return null
  if (image.isError) return <FileImageOutlined title={storedBaseName(name)} />
  if (!image.data) return <Spin size="small" />
  return (
    <Suspense fallback={<Spin size="small" />}>
      <Image src={image.data} width={40} height={40} style={{ objectFit: 'cover' }} alt={storedBaseName(name)} />
    </Suspense>
  )
}

export function FileCell({ entity, field, value }: CellProps) {
  if (typeof value !== 'string' || !value) return null
  // A record's file comes from its entity's route, kept to the entity's permission and data scope.
  const download = () => downloadEntityFile(entity, field.name, value)
  const link = (
    <a className="crud-link" onClick={() => void download().catch(() => undefined)}>
      <PaperClipOutlined /> {storedBaseName(value)}
    </a>
  )
  // A video plays here too; other files (a PDF manual, a log) download.
  return isVideoFile(value) ? (
    <Space size={12} wrap={false}>
      <PlayVideoLink entity={entity} field={field} fileName={value} />
      {link}
    </Space>
  ) : (
    link
  )
}

/** Rich text in a cell is its words only. */
export function RichTextCell({ value, ...rest }: CellProps) {
  const words = typeof value === 'string' ? new DOMParser().parseFromString(value, 'text/html').body.textContent : null
  return <ClippedCell {...rest} value={words} />
}
