import { useEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react'
import type { Language } from '@velo/shared'
import { PRODUCT_NAME } from '../../lib/config'
import { settingsStore } from '../../preferences/settingsStore'
import { currentLanguage, switchLanguage } from '../../i18n/language'
import { t } from './authI18n'
import { Icon, LoadingOutlined, TranslationOutlined } from './icons'
import './auth.css'

const names: Record<Language, string> = { en_US: 'English', zh_CN: '中文' }

/** The language switch of the public pages (stored as user_lang; the page reloads), as the navbar's. */
function LanguageSwitch() {
  const [open, setOpen] = useState(false)
  const box = useRef<HTMLDivElement>(null)
  const language = currentLanguage()
  useEffect(() => {
    if (!open) return
    const outside = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false)
    }
    const escape = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    document.addEventListener('keydown', escape)
    return () => {
      document.removeEventListener('pointerdown', outside)
      document.removeEventListener('keydown', escape)
    }
  }, [open])
  return (
    <div className="auth-language" ref={box}>
      <button
        type="button"
        className="auth-language-icon"
        data-testid="language-select"
        aria-label={t('login.language')}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        <Icon icon={TranslationOutlined} />
      </button>
      {open && (
        <ul className="auth-menu" role="menu">
          {(Object.keys(names) as Language[]).map((l) => (
            <li
              key={l}
              role="menuitem"
              tabIndex={l === language ? -1 : 0}
              aria-disabled={l === language}
              className={l === language ? 'auth-menu-item auth-menu-item-selected' : 'auth-menu-item'}
              onClick={() => l !== language && switchLanguage(l)}
              onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && l !== language && switchLanguage(l)}
            >
              {names[l]}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** The product logo (public/logo.svg), drawn in place so the page makes no request for it. */
function Logo() {
  return (
    <svg viewBox="0 0 64 64" width={40} height={40} aria-hidden="true">
      <circle cx="16" cy="42" r="12" fill="none" stroke="#409eff" strokeWidth="5" />
      <circle cx="48" cy="42" r="12" fill="none" stroke="#409eff" strokeWidth="5" />
      <path d="M16 42 28 20h16l4 22M28 20l-4-8h-6M36 42 44 20" fill="none" stroke="#9fb3c8" strokeWidth="4" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  )
}

/** The frame of the public pages: product name, a language switch and one card. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const themeColor = settingsStore.use((s) => s.themeColor)
  useEffect(() => {
    document.title = `${title} - ${PRODUCT_NAME}`
  }, [title])
  return (
    <div className="auth-page" style={{ '--auth-primary': themeColor } as CSSProperties}>
      <LanguageSwitch />
      <div className="auth-card">
        <div className="auth-brand">
          <Logo />
          <span>{PRODUCT_NAME}</span>
        </div>
        <h2 className="auth-title">{title}</h2>
        {children}
      </div>
    </div>
  )
}

/** While a public page waits for the server's switches: the frame's background and a spinner. */
export function AuthLoading() {
  return (
    <div className="auth-page" aria-busy="true">
      <Icon icon={LoadingOutlined} spin className="auth-page-spinner" />
    </div>
  )
}
