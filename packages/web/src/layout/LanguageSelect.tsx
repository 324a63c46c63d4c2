import { Dropdown } from 'antd'
import { TranslationOutlined } from '@ant-design/icons'
import type { Language } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { currentLanguage, switchLanguage } from '../i18n'

const names: Record<Language, string> = { en_US: 'English', zh_CN: '中文' }

/** Language switch (stored as user_lang; the page reloads). Used in the navbar; the sign-in pages have a light one of their own (layout/auth/AuthFrame.tsx). */
export function LanguageSelect({ className = 'navbar-icon' }: { className?: string }) {
  const { t } = useTranslation()
  const language = currentLanguage()
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [language],
        items: (Object.keys(names) as Language[]).map((l) => ({ key: l, label: names[l], disabled: l === language })),
        onClick: ({ key }) => switchLanguage(key as Language),
      }}
    >
      <TranslationOutlined className={className} data-testid="language-select" aria-label={t('navbar.language')} />
    </Dropdown>
  )
}
