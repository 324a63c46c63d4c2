import { useEffect, type ReactNode } from 'react'
import { PRODUCT_NAME } from '../../app/config'
import { LanguageSelect } from '../LanguageSelect'
import './auth.css'

/** The frame of the public pages: product name, a language switch and one card. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} - ${PRODUCT_NAME}`
  }, [title])
  return (
    <div className="auth-page">
      <div className="auth-language">
        <LanguageSelect className="auth-language-icon" />
      </div>
      <div className="auth-card">
        <div className="auth-brand">
          <img src="/logo.svg" alt="" width={40} height={40} />
          <span>{PRODUCT_NAME}</span>
        </div>
        <h2 className="auth-title">{title}</h2>
        {children}
      </div>
    </div>
  )
}
