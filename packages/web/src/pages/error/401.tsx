import { Button, Result } from 'antd'
import { useNavigate } from 'react-router'
import { useTranslation } from 'react-i18next'

export default function UnauthorizedPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  return (
    <Result
      status="403"
      title="401"
      subTitle={t('error.401')}
      extra={<Button type="primary" onClick={() => navigate('/')}>{t('error.backHome')}</Button>}
    />
  )
}
