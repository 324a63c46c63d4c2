import { useState } from 'react'
import { KeyOutlined } from '@ant-design/icons'
import { iotEntities, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccess } from '../../../session/Access'
import { EntityListPage } from '../../../crud/EntityListPage'
import { RegistrationKeyDialog } from './RegistrationKeyDialog'
import '../iot.css'

const model = iotEntities.iotModel

/** IoT models: the generic list, plus each model's registration key (shown, copied, reset). */
export default function ModelPage() {
  const { t } = useTranslation()
  const mayEdit = useAccess({ permissions: [`${model.permission}:edit`] })
  const [keyFor, setKeyFor] = useState<ApiRowOf<typeof model> | null>(null)
  return (
    <>
      <EntityListPage
        entity={model}
        rowActions={
          mayEdit
            ? (row) => [{ key: 'regKey', label: t('iot.regKey.button'), icon: <KeyOutlined />, onClick: () => setKeyFor(row), testId: 'row-registration-key' }]
            : undefined
        }
      />
      {keyFor && <RegistrationKeyDialog model={keyFor} onClose={() => setKeyFor(null)} />}
    </>
  )
}
