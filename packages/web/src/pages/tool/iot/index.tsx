import { useState } from 'react'
import { Segmented } from 'antd'
import { toolEntities } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { EntityListPage } from '../../../crud/EntityListPage'

const device = toolEntities.toolDevice

/**
 * Tool-system IoT: the devices registered on the line through the tool. Test accounts' devices are
 * kept apart: the list shows one kind at a time, production unless the test devices are chosen.
 */
export default function ToolDevicePage() {
  const { t } = useTranslation()
  const [userType, setUserType] = useState<'production' | 'test'>('production')
  return (
    <EntityListPage
      entity={device}
      params={{ userType }}
      toolbarActions={() => (
        <Segmented
          data-testid="tool-device-kind"
          value={userType}
          onChange={(v) => setUserType(v as 'production' | 'test')}
          options={[
            { value: 'production', label: t('tool.device.production') },
            { value: 'test', label: t('tool.device.test') },
          ]}
        />
      )}
    />
  )
}
