import { PASSWORD_PATTERN } from '@velo/shared'
import type { FormRule } from 'antd'
import type { TFunction } from 'i18next'

// SPEC §5 rules for the web forms: the same patterns the server checks (it has the last word).
export { EMAIL_PATTERN, PASSWORD_PATTERN, PHONE_PATTERN, USERNAME_PATTERN } from '@velo/shared'

/** A new password: required, letters, digits and special characters, 6 to 20. */
export function newPasswordRules(t: TFunction, requiredKey = 'login.passwordRequired'): FormRule[] {
  return [
    { required: true, message: t(requiredKey) },
    { pattern: PASSWORD_PATTERN, message: t('validation.password') },
  ]
}

/** The confirmation must repeat the field `passwordField`. */
export function confirmPasswordRules(t: TFunction, passwordField = 'password'): FormRule[] {
  return [
    { required: true, message: t('validation.confirmRequired') },
    ({ getFieldValue }) => ({
      validator: (_, value) =>
        !value || value === getFieldValue(passwordField) ? Promise.resolve() : Promise.reject(new Error(t('validation.mismatch'))),
    }),
  ]
}
