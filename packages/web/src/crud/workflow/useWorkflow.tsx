import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react'
import { Button } from 'antd'
import { ProfileOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import { type JobInfo, personalDataRight, type ResolvedEntity, REVEAL_PERSONAL_DATA } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccessCheck } from '../../session/Access'
import { jobStore } from '../../api/jobStore'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { refreshAfterChange } from '../api/refresh'
import { fieldErrorsOf, showFailure } from '../api/fieldErrors'
import type { RowAction } from '../list/RowActions'
import { followJob, isJobInfo } from './followJob'
import { confirmText, everyRowOperation, mayRun, meetsWhen, needsDialog, rowOperations, sendOperation, toolbarOperations, type Operation } from './operations'
import { useFeedback } from '../../lib/feedback'
import { maskedFieldsOf } from '../privacy/personal'

// Opened on request, loaded on request: a list's first paint needs neither the details drawer (tabs,
// descriptions) nor a step's dialog (the form kit's inputs, descriptions, alerts). antd's Modal itself
// stays with the console (antd's App holds it for the confirmations), so loading the dialog apart
// leaves the modal's motion where it was (e2e/layout.spec.ts, reduced motion).
const EntityDetails = lazy(() => import('../EntityDetails').then((m) => ({ default: m.EntityDetails })))
const OperationDialog = lazy(() => import('./OperationDialog').then((m) => ({ default: m.OperationDialog })))

/**
 * What a definition's transitions and actions add to its list page: a row's buttons for the steps
 * valid from its state and its actions, each only with its permission; the toolbar's actions; the
 * details with the timeline; and the confirmation or input dialog they open. After a step or action
 * the server's message shows and the entity's lists, counts and rows refresh.
 */
export function useWorkflow(entity: ResolvedEntity) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const may = useAccessCheck()
  const [asking, setAsking] = useState<{ operation: Operation; rows: readonly Row[] } | null>(null)
  const [detailsOf, setDetailsOf] = useState<{ id: unknown } | null>(null)
  const permitted = (op: Operation) => mayRun(op, may)
  // The details are where a row's timeline and related lists are, so rows with either offer them;
  // so do rows with actions, which staff read whole before acting on them (feedback, before a reply:
  // opening it, GET {path}/{id}, is also what marks it read); and rows with a stored file the list
  // leaves out (a help item's video), which only the details play or download.
  const filesOutOfList = entity.fields.some((f) => f.kind === 'file' && !f.hidden && !entity.listed.includes(f))
  const mayReadDetails = (!!entity.transitions || entity.related.length > 0 || filesOutOfList || (entity.actions ?? []).some((a) => a.on === 'row')) && may({ permissions: [`${entity.permission}:query`] })
  // Masked personal values are revealed in the details (privacy/RevealPersonalData.tsx): a user who
  // may reveal them reaches the details from any row that has some, whatever else the entity offers.
  const mayReveal = entity.fields.some((f) => f.personal && !may({ permissions: [personalDataRight(f.personal)] })) && may({ permissions: [REVEAL_PERSONAL_DATA] }) && may({ permissions: [`${entity.permission}:query`] })

  // Its rows, and what they belong to or list (an order's counts after one of its numbers is voided).
  const refreshEntity = () => void refreshAfterChange(queryClient, entity)
  // The jobs this page's actions started, followed until they end or the page goes.
  const following = useRef(new Set<() => void>())
  useEffect(() => {
    const stops = following.current
    return () => {
      for (const stop of stops) stop()
      stops.clear()
    }
  }, [])

  /**
   * A job action's job: the top bar's list shows it and says how it ended (finished, or failed and
   * why); when it ends, the rows it changed refresh here.
   */
  function follow(job: JobInfo) {
    jobStore.started(job)
    const stop = followJob(job, () => {
      following.current.delete(stop)
      refreshEntity()
    })
    following.current.add(stop)
  }

  async function run(op: Operation, rows: readonly Row[], body: Row) {
    const answer = await sendOperation(entity, op, rows, body).catch((error: unknown) => {
      // Refused for the row's state (someone moved it on meanwhile): the list shows where it is now.
      if (!fieldErrorsOf(error)) refreshEntity()
      throw error
    })
    void message.success(op.job ? t('crud.jobStarted', { operation: localized(op.label) }) : answer.msg)
    // A job is only queued (its answer is the job): the rows refresh when it ends.
    if (op.job && isJobInfo(answer.data)) return follow(answer.data)
    refreshEntity()
  }

  function start(op: Operation, rows: readonly Row[]) {
    if (needsDialog(op)) return setAsking({ operation: op, rows })
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: confirmText(entity, op, rows, t),
      okText: localized(op.label),
      okButtonProps: { danger: op.danger },
      // A refusal (409: no longer valid from the row's state) is said in red; the dialog closes.
      onOk: () => run(op, rows, {}).catch(showFailure),
    })
  }

  /** The row's steps and actions the user may run; `only`: those of these names (a related list offers a few). */
  const rowActions = (row: Row, only?: ReadonlySet<string>): RowAction[] =>
    rowOperations(entity, row)
      .filter((op) => permitted(op) && (!only || only.has(op.name)))
      .map((op) => ({
        key: `${op.kind}-${op.name}`,
        label: localized(op.label),
        danger: op.danger,
        onClick: () => start(op, [row]),
        testId: `row-${op.kind}-${op.name}`,
        rare: op.rare,
      }))

  const detailsAction = (row: Row): RowAction | false =>
    (mayReadDetails || (mayReveal && maskedFieldsOf(entity.fields, row).length > 0)) && { key: 'details', label: t('crud.details'), icon: <ProfileOutlined />, onClick: () => setDetailsOf({ id: row[entity.idField] }), testId: 'row-details' }

  const toolbarOps = toolbarOperations(entity).filter(permitted)
  /** Toolbar actions, and actions for the ticked rows (enabled while ticked rows all qualify). */
  const toolbar = (selected: readonly Row[]): ReactNode =>
    toolbarOps.map((op) => (
      <Button
        key={op.name}
        danger={op.danger}
        disabled={op.on === 'selection' && (selected.length === 0 || !meetsWhen(op, selected))}
        onClick={() => start(op, op.on === 'selection' ? selected : [])}
        data-testid={`crud-action-${op.name}`}
      >
        {localized(op.label)}
      </Button>
    ))

  const dialogs = (
    <Suspense fallback={null}>
      {asking && (
        <OperationDialog
          entity={entity}
          operation={asking.operation}
          rows={asking.rows}
          onClose={() => setAsking(null)}
          onRun={(body) => run(asking.operation, asking.rows, body)}
        />
      )}
      {detailsOf && <EntityDetails entity={entity} id={detailsOf.id} as="drawer" onClose={() => setDetailsOf(null)} />}
    </Suspense>
  )

  return {
    rowActions,
    detailsAction,
    /** Some row may have a step, an action or the details: the page keeps its actions column. */
    offersRowActions: mayReadDetails || mayReveal || everyRowOperation(entity).some(permitted),
    /** Some toolbar action works on ticked rows: the table lets rows be ticked. */
    selects: toolbarOps.some((op) => op.on === 'selection'),
    toolbar,
    dialogs,
  }
}
