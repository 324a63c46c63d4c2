import { Button, Empty, Modal, Result, Space, Spin, Tabs, Typography } from 'antd'
import { CopyOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import type { GenFile } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { copyText } from '../../../lib/clipboard'
import { CodeEditor } from '../../../lib/code/CodeEditor'
import { genApi, genKeys } from './genApi'
import { useFeedback } from '../../../lib/feedback'

/** 'packages/shared/src/entities/bike-part.ts' → 'bike-part.ts': a tab names its file. */
const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1) || path

/** One generated file: where it goes in a checkout, its text highlighted, and a copy button. */
function FilePane({ file, index }: { file: GenFile; index: number }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const copy = async () => {
    if (await copyText(file.content)) void message.success(t('gen.copied'))
    else void message.error(t('gen.copyFailed'))
  }
  return (
    <Space orientation="vertical" size="small" style={{ width: '100%' }}>
      <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
        <Typography.Text code data-testid={`gen-preview-path-${index}`}>
          {file.path}
        </Typography.Text>
        <Button size="small" icon={<CopyOutlined />} onClick={() => void copy()} data-testid={`gen-preview-copy-${index}`}>
          {t('gen.copy')}
        </Button>
      </Space>
      <CodeEditor
        readOnly
        value={file.content}
        language={{ kind: file.language === 'markdown' ? 'markdown' : 'typescript' }}
        minHeight={320}
        maxHeight={560}
        ariaLabel={file.path}
        testId={`gen-preview-file-${index}`}
      />
    </Space>
  )
}

/**
 * The files code generation would write for one imported table, as the server renders them from
 * its saved settings: one tab per file. Read only; nothing is written anywhere.
 */
export function PreviewDialog({ tableId, tableName, onClose }: { tableId: number; tableName: string; onClose: () => void }) {
  const { t } = useTranslation()
  // Never from the cache: the settings may have been saved since the last look.
  const preview = useQuery({ queryKey: genKeys.preview(tableId), queryFn: () => genApi.preview(tableId), gcTime: 0, refetchOnWindowFocus: false })
  const files = preview.data?.files ?? []
  return (
    <Modal
      open
      title={t('gen.previewTitle', { table: tableName })}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('gen.close')}</Button>}
      width="min(1100px, calc(100vw - 32px))"
      destroyOnHidden
    >
      <div data-testid="gen-preview">
        {preview.isError ? (
          <Result status="warning" subTitle={t('gen.previewFailed')} />
        ) : preview.isPending ? (
          <Spin spinning style={{ display: 'block', padding: 32 }} />
        ) : files.length === 0 ? (
          <Empty />
        ) : (
          <Tabs
            items={files.map((file, index) => ({
              key: file.path,
              label: <span data-testid={`gen-preview-tab-${index}`}>{fileName(file.path)}</span>,
              children: <FilePane file={file} index={index} />,
            }))}
          />
        )}
      </div>
    </Modal>
  )
}
