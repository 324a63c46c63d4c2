import { systemEntities } from '@velo/shared'
import { EntityListPage } from '../../../crud/EntityListPage'
import { MenuIconCell, MenuNameCell } from './MenuCells'
import { MenuParentInput } from './MenuParentInput'
import { useAllEntities } from '../../../entities/areas'

/** What a new child of a menu usually is: pages in a directory, buttons on a page. */
const CHILD_TYPE: Record<string, string> = { M: 'C', C: 'F' }

/**
 * Menus as a tree table: names that are i18n keys translated, the icon drawn, "add child" starting
 * below the row (a page under a directory, a button under a page); the form's fields follow the
 * menu type through the definition's `when`.
 */
export default function MenuPage() {
  // The buttons' titles of steps and actions come from the definitions of every area (menuTitle).
  useAllEntities()
  return (
    <EntityListPage
      entity={systemEntities.menu}
      cells={{ menuName: MenuNameCell, icon: MenuIconCell }}
      childPreset={(parent) => {
        const menuType = CHILD_TYPE[parent.menuType]
        return menuType ? { menuType } : {}
      }}
      formInputs={{ parentId: (props) => <MenuParentInput {...props} /> }}
    />
  )
}
