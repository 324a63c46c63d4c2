import { useState } from 'react'
import { systemEntities } from '@velo/shared'
import { EntityListPage } from '../../../crud/EntityListPage'
import { EntityTreePanel } from '../../../crud/EntityTreePanel'

/** System users beside the department tree: picking a department lists the users in it and below it. */
export default function UserPage() {
  const [deptId, setDeptId] = useState<unknown>()
  return (
    <EntityListPage
      entity={systemEntities.user}
      params={deptId === undefined ? undefined : { deptId }}
      search={{ hide: ['deptId'] }}
      left={<EntityTreePanel entity={systemEntities.dept} value={deptId} onChange={setDeptId} />}
    />
  )
}
