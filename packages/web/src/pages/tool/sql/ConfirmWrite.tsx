import { useRef } from 'react'
import { Alert, Button, Modal, Typography, theme } from 'antd'
import { useTranslation } from 'react-i18next'

interface ConfirmWriteProps {
  /** The statement that writes; null: closed. */
  statement: string | null
  /** The server's words for why it asks (already in the user's language). */
  reason: string
  running: boolean
  onConfirm: () => void
  onCancel: () => void
}

/** The second confirmation before a write: the whole statement as it will run, and a danger button. */
export function ConfirmWrite({ statement, reason, running, onConfirm, onCancel }: ConfirmWriteProps) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  // The dialog fades out after closing; it keeps showing the statement it asked about meanwhile.
  const shown = useRef({ statement: '', reason: '' })
  if (statement !== null) shown.current = { statement, reason }
  const open = statement !== null
  return (
    <Modal
      open={open}
      title={t('tool.sql.confirmTitle')}
      onCancel={onCancel}
      width={720}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onCancel}>
          {t('common.cancel')}
        </Button>,
        <Button key="run" type="primary" danger loading={running} onClick={onConfirm} data-testid="sql-confirm-run">
          {t('tool.sql.confirmRun')}
        </Button>,
      ]}
    >
      <div data-testid="sql-confirm-write">
        <Alert type="warning" showIcon title={shown.current.reason || t('tool.sql.confirmText')} style={{ marginBottom: token.marginSM }} />
        {shown.current.reason && <Typography.Paragraph>{t('tool.sql.confirmText')}</Typography.Paragraph>}
        <pre
          data-testid="sql-confirm-statement"
          style={{
            maxHeight: 320,
            overflow: 'auto',
            margin: 0,
            padding: token.paddingSM,
            background: token.colorFillTertiary,
            color: token.colorText,
            border: `1px solid ${token.colorBorderSecondary}`,
            borderRadius: token.borderRadius,
            fontFamily: token.fontFamilyCode,
            fontSize: token.fontSizeSM,
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
          }}
        >
          {shown.current.statement}
        </pre>
      </div>
    </Modal>
  )
}
