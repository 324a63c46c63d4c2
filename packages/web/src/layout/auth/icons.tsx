import type { AbstractNode, IconDefinition } from '@ant-design/icons-svg/es/types'

// antd's icon shapes (the same definitions @ant-design/icons draws) without its React components,
// which would bring antd's context and styles into the sign-in page.
export { default as CheckCircleFilled } from '@ant-design/icons-svg/es/asn/CheckCircleFilled'
export { default as CloseCircleFilled } from '@ant-design/icons-svg/es/asn/CloseCircleFilled'
export { default as EyeInvisibleOutlined } from '@ant-design/icons-svg/es/asn/EyeInvisibleOutlined'
export { default as EyeOutlined } from '@ant-design/icons-svg/es/asn/EyeOutlined'
export { default as LoadingOutlined } from '@ant-design/icons-svg/es/asn/LoadingOutlined'
export { default as LockOutlined } from '@ant-design/icons-svg/es/asn/LockOutlined'
export { default as MailOutlined } from '@ant-design/icons-svg/es/asn/MailOutlined'
export { default as NumberOutlined } from '@ant-design/icons-svg/es/asn/NumberOutlined'
export { default as SafetyOutlined } from '@ant-design/icons-svg/es/asn/SafetyOutlined'
export { default as TranslationOutlined } from '@ant-design/icons-svg/es/asn/TranslationOutlined'
export { default as UserOutlined } from '@ant-design/icons-svg/es/asn/UserOutlined'

const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())

function node(n: AbstractNode, key: number) {
  const Tag = n.tag as 'path'
  const attrs = Object.fromEntries(Object.entries(n.attrs).map(([k, v]) => [camel(k), v]))
  return (
    <Tag key={key} {...attrs}>
      {n.children?.map(node)}
    </Tag>
  )
}

/** An icon as antd draws it: 1em square, current colour. */
export function Icon({ icon, className, spin }: { icon: IconDefinition; className?: string; spin?: boolean }) {
  const root = typeof icon.icon === 'function' ? icon.icon('currentColor', '#e6f4ff') : icon.icon
  return (
    <span role="img" aria-hidden="true" className={`auth-icon${spin ? ' auth-icon-spin' : ''}${className ? ` ${className}` : ''}`}>
      <svg viewBox={root.attrs.viewBox} width="1em" height="1em" fill="currentColor" focusable="false">
        {root.children?.map(node)}
      </svg>
    </span>
  )
}
