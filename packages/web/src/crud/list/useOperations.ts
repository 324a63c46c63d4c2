import type { ResolvedEntity } from '@velo/shared'
import { useAccess } from '../../session/Access'

export interface Operations {
  add: boolean
  edit: boolean
  remove: boolean
  export: boolean
  import: boolean
}

/**
 * Which of the list's actions show: the definition must offer the operation and the user must hold
 * '<permission>:<action>' (the server refuses the rest anyway).
 */
export function useOperations(e: ResolvedEntity): Operations {
  const offered = (op: keyof Operations) => e.operations.includes(op)
  const permitted = (action: keyof Operations) => ({ permissions: [`${e.permission}:${action}`] })
  const add = useAccess(permitted('add'))
  const edit = useAccess(permitted('edit'))
  const remove = useAccess(permitted('remove'))
  const exportRows = useAccess(permitted('export'))
  const importRows = useAccess(permitted('import'))
  return {
    add: add && offered('add'),
    edit: edit && offered('edit'),
    remove: remove && offered('remove'),
    export: exportRows && offered('export'),
    import: importRows && offered('import'),
  }
}
