import { useState } from 'react'
import { EyeOutlined } from '@ant-design/icons'
import { systemEntities } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { cleanOperLog } from '../../../api/monitor'
import { useAccess } from '../../../session/Access'
import { EntityDetails } from '../../../crud/EntityDetails'
import { EntityListPage } from '../../../crud/EntityListPage'
import { JsonCell } from '../../../crud/kinds/JsonCell'
import { LogCleanButton } from '../LogCleanButton'
import { OperatorCell } from '../OperatorCell'

const operLog = systemEntities.operLog

/** The operation log: a drawer with every field of an entry (parameters and response as formatted JSON), and clean-up. */
export default function OperLogPage() {
  const { t } = useTranslation()
  const [shown, setShown] = useState<number>()
  const mayQuery = useAccess({ permissions: [`${operLog.permission}:query`] })
  return (
    <>
      <EntityListPage
        entity={operLog}
        cells={{ operName: OperatorCell }}
        rowActions={(row) => [
          mayQuery && { key: 'details', label: t('crud.details'), icon: <EyeOutlined />, onClick: () => setShown(row.operId), testId: 'row-details' },
        ]}
        toolbarActions={() => <LogCleanButton entity={operLog} clean={cleanOperLog} />}
      />
      {shown !== undefined && (
        <EntityDetails entity={operLog} id={shown} as="drawer" cells={{ operParam: JsonCell, jsonResult: JsonCell }} onClose={() => setShown(undefined)} />
      )}
    </>
  )
}
