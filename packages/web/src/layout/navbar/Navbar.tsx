import { Tooltip } from 'antd'
import { GithubOutlined, MenuFoldOutlined, MenuUnfoldOutlined, QuestionCircleOutlined, SettingOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { layoutActions, layoutStore } from '../../preferences/layoutStore'
import { settingsStore } from '../../preferences/settingsStore'
import { useFeatures } from '../auth/useFeatures'
import { LanguageSelect } from '../LanguageSelect'
import { Breadcrumbs } from './Breadcrumbs'
import { FullscreenToggle } from './FullscreenToggle'
import { JobsIndicator } from './JobsIndicator'
import { MenuSearch } from './MenuSearch'
import { SizeSelect } from './SizeSelect'
import { UserMenu } from './UserMenu'

export function Navbar() {
  const { t } = useTranslation()
  const opened = layoutStore.use((s) => s.sidebarOpened)
  const mobile = layoutStore.use((s) => s.device) === 'mobile'
  const showSettings = settingsStore.use((s) => s.showSettings)
  // The documentation and source links are the operator's (SOURCE_URL, API_DOCS_URL on the server):
  // shown only when set, so no console links to a repository or documentation that is not its own.
  const { apiDocsUrl, sourceUrl } = useFeatures().data ?? {}
  const Hamburger = opened ? MenuFoldOutlined : MenuUnfoldOutlined
  return (
    <div className="navbar" data-testid="navbar">
      <Hamburger
        className="hamburger"
        onClick={layoutActions.toggleSidebar}
        data-testid="hamburger"
        aria-label={t('navbar.toggleSidebar')}
        aria-expanded={opened}
      />
      <Breadcrumbs />
      <div className="right-menu">
        {/* The classic layout drops the wide tools on phones. */}
        {!mobile && (
          <>
            <MenuSearch />
            <FullscreenToggle />
            <SizeSelect />
            {apiDocsUrl && (
              <Tooltip title={t('navbar.apiDocs')} placement="bottom">
                <a href={apiDocsUrl} target="_blank" rel="noreferrer" className="navbar-icon" data-testid="api-docs-link" aria-label={t('navbar.apiDocs')}>
                  <QuestionCircleOutlined />
                </a>
              </Tooltip>
            )}
            {sourceUrl && (
              <Tooltip title={t('navbar.source')} placement="bottom">
                <a href={sourceUrl} target="_blank" rel="noreferrer" className="navbar-icon" data-testid="source-link" aria-label={t('navbar.source')}>
                  <GithubOutlined />
                </a>
              </Tooltip>
            )}
          </>
        )}
        <JobsIndicator />
        <LanguageSelect />
        {showSettings && (
          <Tooltip title={t('navbar.layoutSetting')} placement="bottom">
            <button type="button" className="navbar-icon navbar-button" onClick={() => layoutActions.openSettings(true)} aria-label={t('navbar.layoutSetting')} data-testid="settings-button">
              <SettingOutlined />
            </button>
          </Tooltip>
        )}
        <UserMenu />
      </div>
    </div>
  )
}
