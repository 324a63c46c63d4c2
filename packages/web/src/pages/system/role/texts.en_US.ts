// System › Roles' texts in English, loaded with the pages under this folder (routes/pageTexts.ts) rather than with the console. texts.zh_CN.ts has the same keys (the type checks it).

const texts = {
  'role.dataScope': 'Data scope',
  'role.dataScopeTitle': 'Data scope of "{{name}}"',
  'role.dataScopeDepts': 'Departments',
  'role.scopeExplain.1': 'Every row of every page.',
  'role.scopeExplain.2': 'Rows of the departments ticked below (and those below them), and of those departments’ regions (their countries). A department without countries adds none.',
  'role.scopeExplain.3': 'Rows of the user’s own department, and of its region (its countries).',
  'role.scopeExplain.4': 'Rows of the user’s department and every department below it, and of their regions (their countries).',
  'role.scopeExplain.5': 'Only rows that name the user: their own account, and what they created. Members, bikes and devices belong to no staff member: none of them.',
  'role.scopeLimits.dept': 'By department:',
  'role.scopeLimits.country': 'By the departments’ countries:',
  'role.scopeLimits.person': 'Personal rows:',
  'role.scopeLimits.none': 'Settings, catalogues and content for every market are not limited by any scope.',
  'role.scopeListSeparator': ', ',
  'role.dataScopeDeptsHelp': 'Ticking a department includes every department below it.',
  'role.users': 'Assigned users',
  'role.usersTitle': 'Users with the role "{{name}}"',
  'role.cancelAssignment': 'Cancel assignment',
  'role.cancelConfirm': 'Take the role "{{role}}" away from {{names}}?',
  'role.cancelled': 'Assignment cancelled',
}

export type TextKey = keyof typeof texts
export default texts
