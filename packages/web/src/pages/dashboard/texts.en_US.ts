import dashboards from '../../dashboards/texts.en_US'

// Home's texts in English, loaded with the pages under this folder (routes/pageTexts.ts) rather than with the console. texts.zh_CN.ts has the same keys (the type checks it).

const texts = {
  'dashboard.welcome': 'Welcome, {{name}}',
  'dashboard.intro': 'The figures of the countries you look after. Each card opens its list with the same filter.',
  'dashboard.links': 'Dashboards',
}

export type TextKey = keyof typeof texts
// The home page and the analytics pages are the dashboards kit's only users, so its texts come with them.
export default { ...dashboards, ...texts }
