import type { ReactNode } from 'react'
import { CheckCircleFilled, CloseCircleFilled, ExclamationCircleFilled, InfoCircleFilled } from '@ant-design/icons'
import { Flex, theme } from 'antd'

type Status = 'info' | 'warning' | 'error' | 'success'

const ICONS = { info: InfoCircleFilled, warning: ExclamationCircleFilled, error: CloseCircleFilled, success: CheckCircleFilled }

/**
 * A full-width message with an icon, as antd's Result draws it for these four statuses. The shell's
 * own panels (a server it cannot reach, a page that crashed or is missing) use this instead of
 * Result: Result's module carries its 403/404/500 illustrations (33 KB of SVG, ~9 KB gzipped) into
 * every page's load, and only the error pages (pages/error) show them. Its title and text are plain
 * elements in Typography's styles (the same tokens), as nothing else the shell or a list paints first
 * needs antd's Typography.
 */
export function StatusPanel({ status, title, subTitle, extra, ...rest }: { status: Status; title: ReactNode; subTitle?: ReactNode; extra?: ReactNode; 'data-testid'?: string }) {
  const { token } = theme.useToken()
  const Icon = ICONS[status]
  const colour = { info: token.colorInfo, warning: token.colorWarning, error: token.colorError, success: token.colorSuccess }[status]
  return (
    <Flex vertical align="center" gap={token.marginSM} className={`status-panel status-panel-${status}`} style={{ padding: `${token.paddingXL * 1.5}px ${token.paddingLG}px`, textAlign: 'center' }} data-testid={rest['data-testid']} role="status">
      <Icon style={{ fontSize: 72, color: colour, marginBottom: token.marginSM }} />
      <h3 style={{ margin: 0, color: token.colorTextHeading, fontWeight: token.fontWeightStrong, fontSize: token.fontSizeHeading3, lineHeight: token.lineHeightHeading3, wordBreak: 'break-word' }}>{title}</h3>
      {subTitle ? <span style={{ color: token.colorTextDescription, lineHeight: token.lineHeight, wordBreak: 'break-word' }}>{subTitle}</span> : null}
      {extra ? <div style={{ marginTop: token.marginLG }}>{extra}</div> : null}
    </Flex>
  )
}
