import { PASSWORD_PATTERN } from '@velo/shared'
import { AuthPasswordField } from './AuthFields'
import { pattern, required, sameAs, type FieldProps, type Rule } from './authForm'
import { t } from './authI18n'
import { LockOutlined } from './icons'

/** SPEC §5: a new password is required, letters, digits and special characters, 6 to 20. */
export const newPasswordRules = <V,>(): Rule<V>[] => [required(t('login.passwordRequired')), pattern(PASSWORD_PATTERN, t('validation.password'))]

/** The confirmation repeats the field `password`. */
export const confirmPasswordRules = <V extends Record<string, string>>(): Rule<V>[] => [
  required(t('validation.confirmRequired')),
  sameAs<V>('password', t('validation.mismatch')),
]

/** A new password and its confirmation (fields `password` and `confirmPassword`), as the public forms ask for them. */
export function NewPasswordFields({ password, confirm, placeholder }: { password: FieldProps; confirm: FieldProps; placeholder: string }) {
  return (
    <>
      <AuthPasswordField field={password} icon={LockOutlined} placeholder={placeholder} autoComplete="new-password" />
      <AuthPasswordField field={confirm} icon={LockOutlined} placeholder={t('register.confirmPassword')} autoComplete="new-password" />
    </>
  )
}
