import { Button, Space, Typography } from 'antd'
import { CopyOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { copyText } from '../../lib/clipboard'
import { useFeedback } from '../../lib/feedback'

/** A secret or key in a monospaced box with a copy button. */
export function SecretValue({ value, testId }: { value: string; testId: string }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const copy = async () => {
    if (await copyText(value)) void message.success(t('iot.copied'))
    else void message.warning(t('iot.copyFailed'))
  }
  return (
    <Space.Compact className="iot-secret">
      <Typography.Text code className="iot-secret-value" data-testid={testId}>
        {value}
      </Typography.Text>
      <Button icon={<CopyOutlined />} onClick={() => void copy()} data-testid={`${testId}-copy`}>
        {t('iot.copy')}
      </Button>
    </Space.Compact>
  )
}
