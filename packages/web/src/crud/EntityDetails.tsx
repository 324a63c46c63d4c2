import { Descriptions, Drawer, Modal, Spin, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { FieldDef, ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../i18n'
import { crudApi, crudKeys, type EntityRow, type Row } from './api/crudApi'
import { kindOf } from './kinds/kindTable'
import type { CellRenderer } from './kinds/types'
import { FieldValue } from './details/FieldValue'
import { RelatedLists, useRelatedLists } from './details/RelatedLists'
import { workflowCells } from './workflow/cells'
import { TransitionTimeline } from './workflow/TransitionTimeline'
import { useEntitiesNamedBy } from '../entities/areas'
import { useRevealedRow } from './privacy/RevealPersonalData'

export interface EntityDetailsProps<E extends ResolvedEntity = ResolvedEntity> {
  entity: E
  /** The row's id: it is loaded with GET {path}/{id}, so fields the list leaves out show too. */
  id: unknown
  onClose: () => void
  /** A drawer for long rows (an operation log with its parameters), else a dialog. */
  as?: 'drawer' | 'modal'
  /** Values shown the page's way, by field name (JSON formatted, say). */
  cells?: Readonly<Record<string, CellRenderer<EntityRow<E>>>>
  /** Fields left out. */
  hide?: readonly string[]
}

/** The details' width when a related list is a whole list page (antd keeps a drawer within the window). */
const MANAGED_WIDTH = 1200

// Pages showing a row their own way (a device's drawer) take it from here, with the descriptions.
export { FieldValue }

/** Long values take a whole line of the description list. */
const isLong = (f: FieldDef) => f.kind === 'longText' || f.kind === 'richText' || kindOf(f).wide === true

/**
 * Every field of a loaded row but passwords and `hide`, labelled from the definition, in two columns.
 * Personal values the row has masked offer, to a user holding member:pii:reveal, to be revealed in
 * place for a reason (privacy/RevealPersonalData.tsx): every details view has it, the pages' own too.
 */
export function EntityDescriptions<E extends ResolvedEntity>({ entity, row, cells = {}, hide = [], testId = 'entity-details' }: { entity: E; row: EntityRow<E>; cells?: Readonly<Record<string, CellRenderer<EntityRow<E>>>>; hide?: readonly string[]; testId?: string }) {
  const fields = entity.fields.filter((f) => f.kind !== 'password' && !hide.includes(f.name))
  const shownCells: Readonly<Record<string, CellRenderer<EntityRow<E>>>> = { ...workflowCells(entity), ...cells }
  const revealed = useRevealedRow<Row>(entity, row)
  // The clear values replace the masks in the row the cells get: they are the row's own values.
  const shown = revealed.row as EntityRow<E>
  return (
    <>
      {revealed.bar}
      <Descriptions
        className="crud-details"
        bordered
        size="small"
        // Two columns of label and value need a tablet's width; a phone's drawer shows one, so nothing runs off its right edge.
        column={{ xs: 1, sm: 1, md: 2 }}
        data-testid={testId}
        items={fields.map((f) => ({
          key: f.name,
          label: localized(f.label),
          span: isLong(f) ? { xs: 1, sm: 1, md: 2 } : 1,
          children: <FieldValue entity={entity} field={f} row={shown} cells={shownCells} />,
        }))}
      />
    </>
  )
}

/**
 * Every field of one row, read-only, labelled from the definition: the detail view of a log entry;
 * for a row with states, its timeline below; then the definition's related lists the user may read
 * (a member's bikes and rides), each a tab with its chart and a paged table.
 */
export function EntityDetails<E extends ResolvedEntity>({ entity, id, onClose, as = 'modal', cells = {}, hide = [] }: EntityDetailsProps<E>) {
  useEntitiesNamedBy(entity)
  const { t } = useTranslation()
  const row = useQuery({ queryKey: crudKeys.row(entity, id), queryFn: () => crudApi(entity).get(id), gcTime: 0 })
  const queryClient = useQueryClient()
  // Opening a row may change it (a feedback item becomes read): the list shows it as it is now.
  const close = () => {
    void queryClient.invalidateQueries({ queryKey: [...crudKeys.all(entity), 'list'] })
    onClose()
  }
  const body = !row.data ? (
    <Spin spinning style={{ display: 'block', padding: 48 }} />
  ) : (
    <>
      <EntityDescriptions entity={entity} row={row.data} cells={cells} hide={hide} />
      {entity.transitions && (
        <section className="crud-details-history">
          <Typography.Title level={5}>{t('crud.history')}</Typography.Title>
          <TransitionTimeline entity={entity} id={id} />
        </section>
      )}
      <RelatedLists entity={entity} id={id} />
    </>
  )
  const title = t('crud.detailsTitle', { entity: localized(entity.singular) })
  // A related list page (`manage`: search, toolbar, a table with its actions) needs more room.
  const managed = useRelatedLists(entity).some((l) => l.manage)
  return as === 'drawer' ? (
    <Drawer open title={title} onClose={close} size={managed ? MANAGED_WIDTH : 820} destroyOnHidden>
      {body}
    </Drawer>
  ) : (
    <Modal open title={title} onCancel={close} footer={null} width={managed ? MANAGED_WIDTH : 760} destroyOnHidden>
      {body}
    </Modal>
  )
}
