import { Component, type ReactNode } from 'react'
import { Button } from 'antd'
import i18n from '../../i18n'
import { StatusPanel } from './StatusPanel'

interface State {
  error: Error | null
}

/** A page that crashes (or whose chunk fails to load) shows a panel; the shell keeps working. */
export class PageErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null }

  static getDerivedStateFromError(error: Error): State {
    return { error }
  }

  override render() {
    if (!this.state.error) return this.props.children
    return (
      <StatusPanel
        status="error"
        title={i18n.t('page.crashed')}
        subTitle={this.state.error.message}
        extra={<Button onClick={() => window.location.reload()}>{i18n.t('page.reload')}</Button>}
      />
    )
  }
}
