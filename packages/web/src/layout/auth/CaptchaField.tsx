import { AuthInput, AuthItem } from './AuthFields'
import type { FieldProps, Rule } from './authForm'
import { required } from './authForm'
import { t } from './authI18n'
import { SafetyOutlined } from './icons'
import type { CaptchaState } from './useCaptcha'

/** The rules of the code field: required while the server asks for a captcha. */
export const captchaRules = <V,>(captcha: CaptchaState): Rule<V>[] => (captcha.enabled ? [required(t('login.codeRequired'))] : [])

/** Code input plus the captcha image (click for a new one); renders nothing when captcha is off. */
export function CaptchaField({ captcha, field }: { captcha: CaptchaState; field: FieldProps }) {
  if (!captcha.enabled) return null
  return (
    <AuthItem error={field.error}>
      <div className="captcha-row">
        <AuthInput field={field} icon={SafetyOutlined} placeholder={t('login.code')} autoComplete="off" maxLength={8} />
        <img
          className="captcha-img"
          src={captcha.img}
          alt={t('login.captchaAlt')}
          title={t('login.captchaRefresh')}
          onClick={captcha.refresh}
          data-testid="captcha-img"
        />
      </div>
    </AuthItem>
  )
}
