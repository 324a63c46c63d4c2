import { createRequire } from 'node:module'
import type { Plugin } from 'vite'

const ID = 'virtual:velo-antd-styles'
const RESOLVED = `\0${ID}`

// The packages' CommonJS builds, as Node loads them: antd's lib/ and the same @ant-design/cssinjs
// instance it imports, so the cache below is the one its components write to.
const require = createRequire(import.meta.url)

/**
 * The antd components every list page draws at once: the shell (menu, breadcrumb, avatar, dropdowns,
 * tooltips, the tags view's buttons), the search form (inputs, selects, tree selects, switches), the
 * toolbar, the table with its checkboxes, spinner and pagination, the department tree, and what the
 * dashboard and the other first pages add (cards, grid, tags, badges, tabs, radio and segmented
 * switches). Anything else (dialogs, forms, date pickers, uploads) makes its styles when it first
 * renders, as antd always does.
 */
function firstScreens(antd: typeof import('antd'), h: typeof import('react').createElement) {
  const options = [{ value: 1, label: 'a' }]
  return [
    h(antd.Layout, null, h(antd.Layout.Sider), h(antd.Layout.Header), h(antd.Layout.Content)),
    h(antd.Menu, { items: [{ key: 'a', label: 'a', children: [{ key: 'b', label: 'b' }] }], mode: 'inline', theme: 'dark' }),
    h(antd.Breadcrumb, { items: [{ title: 'a' }, { title: 'b' }] }),
    h(antd.Avatar),
    h(antd.Dropdown, { menu: { items: [{ key: 'a', label: 'a' }] }, open: true }, h('span')),
    h(antd.Tooltip, { title: 'a', open: true }, h('span')),
    h(antd.Popover, { content: 'a', open: true }, h('span')),
    h(antd.Button, null, 'a'),
    h(antd.Space.Compact, null, h(antd.Button, null, 'a'), h(antd.Button, null, 'b')),
    h(antd.Space, null, 'a'),
    h(antd.Input),
    h(antd.Input.Search),
    h(antd.Input.Password),
    h(antd.InputNumber),
    h(antd.Select, { options }),
    h(antd.TreeSelect, { treeData: [] }),
    h(antd.Switch),
    h(antd.Checkbox),
    h(antd.Radio.Group, { options, optionType: 'button' }),
    h(antd.Segmented, { options: ['a', 'b'] }),
    h(antd.Table, { columns: [{ title: 'a', dataIndex: 'a' }], dataSource: [{ key: 1, a: 1 }], rowSelection: {}, pagination: { total: 50, showSizeChanger: true, showQuickJumper: true } }),
    h(antd.Pagination, { total: 50 }),
    h(antd.Spin),
    h(antd.Empty),
    h(antd.Tree, { treeData: [{ key: 'a', title: 'a' }] }),
    h(antd.Tag, null, 'a'),
    h(antd.Badge, { count: 1 }),
    h(antd.Card, { title: 'a' }, 'b'),
    h(antd.Row, null, h(antd.Col, { span: 12 })),
    h(antd.Tabs, { items: [{ key: 'a', label: 'a' }] }),
    h(antd.Typography.Text, null, 'a'),
    h(antd.Divider),
    h(antd.Skeleton),
    h(antd.Alert, { title: 'a' }),
  ]
}

/**
 * The styles antd's components make in the browser for the first screens (above), made once at build
 * time instead: one CSS file and, in it, the map of what it holds that @ant-design/cssinjs reads (its
 * "CSS file" mode, antd's own way of shipping styles made ahead). A component whose style is in the file
 * skips making it (its style object, the CSS serializer and the hash); ~100 ms of the console's first
 * render on this machine, the largest single part of the work between Enter and the first row.
 *
 * Every theme shares these styles: antd 6 writes colours, sizes and the compact and dark algorithms as
 * CSS variables, which it still sets at run time, and names a component's style by its class and
 * antd's version only. A component not in the file, or a file that fails to load, makes its style at
 * run time as before.
 */
export function antdStaticStyleSheet(): string {
  const React = require('react') as typeof import('react')
  const { renderToString } = require('react-dom/server') as typeof import('react-dom/server')
  const antd = require('antd') as typeof import('antd')
  const { createCache, extractStyle, StyleProvider } = require('@ant-design/cssinjs') as typeof import('@ant-design/cssinjs')
  const cache = createCache()
  renderToString(React.createElement(StyleProvider, { cache }, React.createElement(antd.ConfigProvider, null, ...firstScreens(antd, React.createElement))))
  // antd names its styles by NODE_ENV ('css-…' in production, 'css-dev-only-do-not-override-…' otherwise),
  // read when the module loads. The build runs this with the NODE_ENV it gives the browser's code
  // (production, unless the caller set one: the quick start's test runs the build under Vitest's
  // 'test'), so the names match either way.
  return extractStyle(cache, { plain: true, types: 'style' })
}

/**
 * `virtual:velo-antd-styles`: the URL of that CSS file (assets/antd-<hash>.css, compressed with the
 * rest by precompress.ts), or null on the dev server and in Vitest, where antd makes every style at run
 * time. app/loadConsole.ts puts it in the page before the console's first render.
 */
export function antdStaticStyles(): Plugin {
  let build = false
  return {
    name: 'velo-antd-static-styles',
    configResolved(config) {
      build = config.command === 'build'
    },
    resolveId: (source) => (source === ID ? RESOLVED : undefined),
    load(id) {
      if (id !== RESOLVED) return undefined
      if (!build) return 'export default null'
      const ref = this.emitFile({ type: 'asset', name: 'antd.css', source: antdStaticStyleSheet() })
      return `export default import.meta.ROLLUP_FILE_URL_${ref}`
    },
  }
}
