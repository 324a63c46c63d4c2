import { useState } from 'react'
import { Alert, Button, Form, Input, Modal, Typography, type ButtonProps, type FormRule } from 'antd'
import { EyeOutlined } from '@ant-design/icons'
import { useMutation } from '@tanstack/react-query'
import { type FieldDef, type ResolvedEntity, REVEAL_PERSONAL_DATA, REVEAL_REASON_MAX, REVEAL_REASON_MIN } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { useAccess } from '../../session/Access'
import { http } from '../../api/http'
import type { Row } from '../api/crudApi'
import { maskedFieldsOf } from './personal'
import './privacyTexts'

// The reveal button, its reason dialog and the note once shown (RevealPersonalData.tsx): loaded only
// by a details view of a row with masked values, so a list's first screen carries none of it.

/** The OK button of the reason dialog (the tests find it). */
const REVEAL_OK = { 'data-testid': 'reveal-ok' } as ButtonProps

export default function RevealBar({ entity, row, revealed, onRevealed }: { entity: ResolvedEntity; row: Row; revealed: boolean; onRevealed: (values: Row) => void }) {
  const { t } = useTranslation()
  // The server refuses without the right: no button offers what would be refused.
  const mayReveal = useAccess({ permissions: [REVEAL_PERSONAL_DATA] })
  const [asking, setAsking] = useState(false)
  const masked = maskedFieldsOf(entity.fields, row)
  if (revealed) return <Alert className="crud-details-privacy-note" type="info" showIcon title={t('crud.revealedNote')} data-testid="personal-revealed" />
  if (!masked.length || !mayReveal) return null
  return (
    <div className="crud-details-privacy">
      <Button icon={<EyeOutlined />} onClick={() => setAsking(true)} data-testid="reveal-personal">
        {t('crud.reveal')}
      </Button>
      {asking && (
        <RevealDialog
          entity={entity}
          id={row[entity.idField]}
          fields={masked}
          onClose={() => setAsking(false)}
          onRevealed={(values) => {
            setAsking(false)
            onRevealed(values)
          }}
        />
      )}
    </div>
  )
}

interface ReasonValues {
  reason: string
}

/** Asks why (REVEAL_REASON_MIN to REVEAL_REASON_MAX characters, as the server checks it, trimmed), then reveals. */
function RevealDialog({ entity, id, fields, onClose, onRevealed }: { entity: ResolvedEntity; id: unknown; fields: readonly FieldDef[]; onClose: () => void; onRevealed: (values: Row) => void }) {
  const { t, i18n } = useTranslation()
  const [form] = Form.useForm<ReasonValues>()
  const reveal = useMutation({
    // POST {path}/{id}/reveal (member:pii:reveal): the server's operation log keeps the reason. A refusal shows in red.
    mutationFn: (reason: string) => http.post<{ values: Row }>(`${entity.path}/${encodeURIComponent(String(id))}/reveal`, { reason }),
    onSuccess: (answer) => onRevealed(answer.values),
    // onError left out: the client showed why (no right, the row gone).
  })
  const reasonRule: FormRule = {
    validator: async (_, value: unknown) => {
      const length = typeof value === 'string' ? value.trim().length : 0
      if (length === 0) throw new Error(t('crud.revealReasonRequired'))
      if (length < REVEAL_REASON_MIN || length > REVEAL_REASON_MAX) throw new Error(t('crud.revealReasonLength', { min: REVEAL_REASON_MIN, max: REVEAL_REASON_MAX }))
    },
  }

  async function submit() {
    let values: ReasonValues
    try {
      values = await form.validateFields()
    } catch {
      return // antd marks the field
    }
    reveal.mutate(values.reason.trim())
  }

  const names = new Intl.ListFormat(i18n.language.replace('_', '-'), { type: 'conjunction' }).format(fields.map((f) => localized(f.label)))
  return (
    <Modal
      open
      title={t('crud.reveal')}
      okText={t('crud.revealOk')}
      cancelText={t('common.cancel')}
      okButtonProps={REVEAL_OK}
      onOk={() => void submit()}
      confirmLoading={reveal.isPending}
      onCancel={onClose}
      destroyOnHidden
      mask={{ closable: false }}
    >
      <Typography.Paragraph>{t('crud.revealIntro', { fields: names })}</Typography.Paragraph>
      <Form<ReasonValues> form={form} layout="vertical" name="reveal-personal" data-testid="reveal-form">
        <Form.Item name="reason" label={t('crud.revealReason')} required rules={[reasonRule]}>
          <Input.TextArea rows={3} maxLength={REVEAL_REASON_MAX} showCount placeholder={t('crud.revealReasonHint')} autoFocus />
        </Form.Item>
      </Form>
    </Modal>
  )
}
