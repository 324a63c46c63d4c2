import { useState } from 'react'
import { Drawer } from 'antd'
import { UnorderedListOutlined } from '@ant-design/icons'
import { systemEntities, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccess } from '../../../session/Access'
import { EntityListPage } from '../../../crud/EntityListPage'
import { TextInput } from '../../../crud/kinds/inputs'

const { dictType, dictData } = systemEntities

/**
 * Dictionary types; "Items" opens the items of one type: the dictData list fixed to it (its add form
 * starts with the type, which stays as it is).
 */
export default function DictPage() {
  const { t } = useTranslation()
  const [open, setOpen] = useState<ApiRowOf<typeof dictType> | null>(null)
  const mayListItems = useAccess({ permissions: ['system:dict:list'] })
  return (
    <>
      <EntityListPage
        entity={dictType}
        rowActions={(row) => [
          mayListItems && { key: 'items', label: t('dict.items'), icon: <UnorderedListOutlined />, onClick: () => setOpen(row), testId: 'row-dict-items' },
        ]}
      />
      {open && (
        <Drawer open title={t('dict.itemsTitle', { name: open.dictName, type: open.dictType })} onClose={() => setOpen(null)} size={1000} destroyOnHidden data-testid="dict-items">
          <EntityListPage
            entity={dictData}
            params={{ dictType: open.dictType }}
            // The page's URL is the types' list's; the items in the drawer are its passing view.
            urlFilters={false}
            formInputs={{ dictType: (props) => <TextInput {...props} disabled /> }}
          />
        </Drawer>
      )}
    </>
  )
}
