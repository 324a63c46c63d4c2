import { useState } from 'react'
import { Button } from 'antd'
import { KeyOutlined } from '@ant-design/icons'
import { iotEntities } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccess } from '../../../app/Access'
import type { Row } from '../../../crud/api/crudApi'
import { EntityListPage } from '../../../crud/EntityListPage'
import { RegistrationKeyDialog } from './RegistrationKeyDialog'
import '../iot.css'

const model = iotEntities.iotModel

/** IoT models: the generic list, plus each model's registration key (shown, copied, reset). */
export default function ModelPage() {
  const { t } = useTranslation()
  const mayEdit = useAccess({ permissions: [`${model.permission}:edit`] })
  const [keyFor, setKeyFor] = useState<Row | null>(null)
  return (
    <>
      <EntityListPage
        entity={model}
        rowActions={
          mayEdit
            ? (row) => (
                <Button type="link" size="small" icon={<KeyOutlined />} onClick={() => setKeyFor(row)} data-testid="row-registration-key">
                  {t('iot.regKey.button')}
                </Button>
              )
            : undefined
        }
      />
      {keyFor && <RegistrationKeyDialog model={keyFor} onClose={() => setKeyFor(null)} />}
    </>
  )
}
