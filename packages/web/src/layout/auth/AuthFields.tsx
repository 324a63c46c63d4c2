import { useState, type InputHTMLAttributes, type ReactNode } from 'react'
import type { IconDefinition } from '@ant-design/icons-svg/es/types'
import type { FieldProps } from './authForm'
import { EyeInvisibleOutlined, EyeOutlined, Icon, LoadingOutlined } from './icons'
import { t } from './authI18n'

// The controls of the public pages, drawn by auth.css to look like antd's large Input, Input.Password,
// Checkbox and primary Button, which these pages no longer load.

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'name'>

/** One form row: the control and, under it, the error of the field. */
export function AuthItem({ error, children }: { error?: string | null; children: ReactNode }) {
  return (
    <div className={`auth-item${error ? ' auth-item-error' : ''}`}>
      {children}
      {error && (
        <div className="auth-explain" role="alert">
          {error}
        </div>
      )}
    </div>
  )
}

/** An input with a prefix icon; `suffix` (the eye of a password) goes at its end. */
export function AuthInput({ field, icon, suffix, ...rest }: { field: FieldProps; icon: IconDefinition; suffix?: ReactNode } & InputProps) {
  return (
    <span className={`auth-input${field.error ? ' auth-input-error' : ''}`}>
      <Icon icon={icon} className="auth-input-prefix" />
      <input
        {...rest}
        name={field.name}
        value={field.value}
        aria-invalid={field.error ? true : undefined}
        onChange={(e) => field.onChange(e.target.value)}
      />
      {suffix}
    </span>
  )
}

export function AuthTextField(props: { field: FieldProps; icon: IconDefinition } & InputProps) {
  return (
    <AuthItem error={props.field.error}>
      <AuthInput type="text" {...props} />
    </AuthItem>
  )
}

/** A password with the eye that shows it, as antd's Input.Password. */
export function AuthPasswordField(props: { field: FieldProps; icon: IconDefinition } & InputProps) {
  const [visible, setVisible] = useState(false)
  const eye = (
    <button
      type="button"
      className="auth-input-suffix"
      tabIndex={-1}
      aria-label={t('login.showPassword')}
      aria-pressed={visible}
      onMouseDown={(e) => e.preventDefault()}
      onClick={() => setVisible((v) => !v)}
    >
      <Icon icon={visible ? EyeOutlined : EyeInvisibleOutlined} />
    </button>
  )
  return (
    <AuthItem error={props.field.error}>
      <AuthInput {...props} type={visible ? 'text' : 'password'} suffix={eye} />
    </AuthItem>
  )
}

export function AuthCheckbox({ checked, onChange, children }: { checked: boolean; onChange: (checked: boolean) => void; children: ReactNode }) {
  return (
    <label className="auth-checkbox">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <span>{children}</span>
    </label>
  )
}

/** The form's primary, full-width submit button; busy shows the spinner and ignores clicks. */
export function AuthSubmit({ busy, children, testId }: { busy: boolean; children: ReactNode; testId?: string }) {
  return (
    <button type="submit" className={`auth-button${busy ? ' auth-button-busy' : ''}`} aria-busy={busy} data-testid={testId} onClick={busy ? (e) => e.preventDefault() : undefined}>
      {busy && <Icon icon={LoadingOutlined} spin className="auth-button-spinner" />}
      <span>{children}</span>
    </button>
  )
}
