import { useQueryClient } from '@tanstack/react-query'
import type { ResolvedEntity } from '@velo/shared'
import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { crudApi, type Row } from '../api/crudApi'
import { refreshAfterChange } from '../api/refresh'
import { useFeedback } from '../../lib/feedback'

/** Rows (of any entity) named for people by the definition's label field; a long selection names a few and counts the rest. */
export function rowNames(e: ResolvedEntity, rows: readonly Row[], t: TFunction, shown = 5): string {
  const names = rows.slice(0, shown).map((row) => String(row[e.labelField] ?? row[e.idField]))
  const joined = names.join(', ')
  return rows.length > shown ? t('crud.andMore', { names: joined, count: rows.length - shown }) : joined
}

/** Deleting rows after a confirmation that names them (SPEC §8); the entity's lists refresh after. */
export function useDeleteRows(e: ResolvedEntity, onDeleted: () => void) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  return (rows: readonly Row[]) => {
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('crud.deleteConfirm', { entity: localized(e.label), names: rowNames(e, rows, t) }),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await crudApi(e).remove(rows.map((row) => row[e.idField]))
          void message.success(t('crud.deleteSuccess'))
          void refreshAfterChange(queryClient, e)
          onDeleted()
        } catch {
          // The client showed why (e.g. a node with children, SPEC §8).
        }
      },
    })
  }
}
