import { Form, Input } from 'antd'
import { SafetyOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import type { CaptchaState } from './useCaptcha'

/** Code input plus the captcha image (click for a new one); renders nothing when captcha is off. */
export function CaptchaField({ captcha }: { captcha: CaptchaState }) {
  const { t } = useTranslation()
  if (!captcha.enabled) return null
  return (
    <Form.Item>
      <div className="captcha-row">
        <Form.Item name="code" noStyle rules={[{ required: true, message: t('login.codeRequired') }]}>
          <Input prefix={<SafetyOutlined />} placeholder={t('login.code')} autoComplete="off" maxLength={8} />
        </Form.Item>
        <img
          className="captcha-img"
          src={captcha.img}
          alt={t('login.captchaAlt')}
          title={t('login.captchaRefresh')}
          onClick={captcha.refresh}
          data-testid="captcha-img"
        />
      </div>
    </Form.Item>
  )
}
