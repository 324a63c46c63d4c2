import { useEffect, useState } from 'react'
import { Tooltip } from 'antd'
import { FullscreenExitOutlined, FullscreenOutlined } from '@ant-design/icons'
import screenfull from 'screenfull'
import { useTranslation } from 'react-i18next'
import { useFeedback } from '../../lib/feedback'

export function FullscreenToggle() {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const [isFullscreen, setFullscreen] = useState(false)

  useEffect(() => {
    if (!screenfull.isEnabled) return
    const sync = () => setFullscreen(screenfull.isFullscreen)
    screenfull.on('change', sync)
    return () => screenfull.off('change', sync)
  }, [])

  function toggle() {
    if (!screenfull.isEnabled) {
      void message.warning(t('navbar.fullscreenUnsupported'))
      return
    }
    void screenfull.toggle()
  }

  const Icon = isFullscreen ? FullscreenExitOutlined : FullscreenOutlined
  return (
    <Tooltip title={t('navbar.fullscreen')}>
      <Icon className="navbar-icon" onClick={toggle} data-testid="fullscreen-toggle" aria-label={t('navbar.fullscreen')} />
    </Tooltip>
  )
}
