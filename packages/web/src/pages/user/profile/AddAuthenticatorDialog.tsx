import { Button, Form, Input, Modal, Typography } from 'antd'
import { useMutation } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { confirmTotp, type TotpConfirmed, type TotpEnrolment } from '../../../api/profile'

interface AppValues {
  name: string
  code: string
}

const SIX_DIGITS = /^\d{6}$/

/** 'JBSWY3DPEHPK3PXP' → 'JBSW Y3DP EHPK 3PXP': a long key is typed by hand far more reliably in groups. */
export const groupsOfFour = (secret: string): string => secret.replace(/(.{4})(?=.)/g, '$1 ')

/**
 * Adding an authenticator app: the seed the server just made (its QR code, and the key for typing by
 * hand), which it keeps only once the app's first code proves the app holds it.
 */
export function AddAuthenticatorDialog({ seed, onAdded, onClose }: { seed: TotpEnrolment; onAdded: (added: TotpConfirmed) => void; onClose: () => void }) {
  const { t } = useTranslation()
  const [form] = Form.useForm<AppValues>()
  const confirmation = useMutation({
    mutationFn: ({ name, code }: AppValues) => confirmTotp({ code, name: name.trim() || undefined }),
    onSuccess: onAdded,
    // A wrong or late code: the client showed the server's reason; the next code is a fresh try.
    onError: () => form.setFieldValue('code', ''),
  })

  return (
    <Modal
      open
      title={t('profile.security.addApp')}
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button key="confirm" type="primary" loading={confirmation.isPending} onClick={() => form.submit()} data-testid="factor-confirm">
          {t('profile.security.confirm')}
        </Button>,
      ]}
    >
      <div data-testid="factor-add-dialog">
        <Typography.Paragraph>{t('profile.security.scan')}</Typography.Paragraph>
        <div className="factor-qr">
          <img src={`data:image/svg+xml;utf8,${encodeURIComponent(seed.qrSvg)}`} alt={t('profile.security.qrAlt')} width={200} height={200} data-testid="factor-qr" />
        </div>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 4 }}>
          {t('profile.security.typeSecret')}
        </Typography.Paragraph>
        <Typography.Paragraph copyable={{ text: seed.secret }} className="factor-secret" data-testid="factor-secret">
          {groupsOfFour(seed.secret)}
        </Typography.Paragraph>
        <Form<AppValues> form={form} layout="vertical" name="factor" initialValues={{ name: t('profile.security.defaultAppName'), code: '' }} onFinish={(values) => confirmation.mutate(values)} requiredMark={false}>
          <Form.Item name="name" label={t('profile.security.appName')} extra={t('profile.security.appNameHint')}>
            <Input maxLength={64} data-testid="factor-name" />
          </Form.Item>
          <Form.Item
            name="code"
            label={t('profile.security.code')}
            extra={t('profile.security.codeHint')}
            rules={[{ pattern: SIX_DIGITS, required: true, message: t('profile.security.codeInvalid') }]}
            // Apps show the code as '123 456'; a pasted space is not a mistake.
            normalize={(value: string) => value.replace(/\D/g, '').slice(0, 6)}
          >
            <Input inputMode="numeric" autoComplete="one-time-code" maxLength={7} autoFocus onPressEnter={() => form.submit()} data-testid="factor-code" />
          </Form.Item>
        </Form>
      </div>
      <style>{`
        .factor-qr { display: flex; justify-content: center; margin-bottom: 12px; }
        .factor-qr img { border: 1px solid rgba(0,0,0,.06); border-radius: 8px; padding: 8px; background: #fff; }
        .factor-secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 15px; letter-spacing: .04em; }
      `}</style>
    </Modal>
  )
}
