import { Button, Result } from 'antd'
import { useNavigate } from 'react-router'
import { useTranslation } from 'react-i18next'

export default function NotFoundPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  return (
    <Result
      status="404"
      title="404"
      subTitle={t('error.404')}
      extra={<Button type="primary" onClick={() => navigate('/')}>{t('error.backHome')}</Button>}
    />
  )
}
