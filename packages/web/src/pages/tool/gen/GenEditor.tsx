import { useCallback, useState } from 'react'
import { Alert, Button, Card, Col, Form, Input, Radio, Row, Select, Space, Tabs } from 'antd'
import { ArrowLeftOutlined, EyeOutlined, SaveOutlined } from '@ant-design/icons'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { toolEntities, type GenColumn, type GenTableConfig } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { crudKeys } from '../../../crud/api/crudApi'
import { fieldErrorsOf, showFailure } from '../../../crud/api/fieldErrors'
import { localized } from '../../../i18n'
import { ColumnsTable } from './ColumnsTable'
import { genApi, type GenConfigAnswer } from './genApi'
import {
  draftOf,
  errorsByPath,
  MENU_AREAS,
  setArea,
  setColumn,
  setEntityKey,
  setLabel,
  setPermission,
  setTemplate,
  setTreeParent,
  type GenDraft,
} from './genConfig'
import { PreviewDialog } from './PreviewDialog'
import { useFeedback } from '../../../lib/feedback'

type TabKey = 'basic' | 'columns' | 'generation'

const GENERATION_PATHS = new Set(['area', 'path', 'permission', 'template', 'treeParent'])
/** The tab that shows the input a server error names. */
const tabOfPath = (path: string): TabKey => (path.startsWith('columns') ? 'columns' : GENERATION_PATHS.has(path) ? 'generation' : 'basic')

export interface GenEditorProps {
  answer: GenConfigAnswer
  onBack: () => void
}

/**
 * One imported table's generation settings (RuoYi's 修改生成配置): basic info, the columns and the
 * generation info, saved whole (PUT /tool/gen/{id}/config, which checks it whole), and the preview
 * of what the saved settings generate.
 */
export function GenEditor({ answer, onBack }: GenEditorProps) {
  const { t } = useTranslation()
  const { message, modal } = useFeedback()
  const queryClient = useQueryClient()
  const { tableId, tableName, tableComment } = answer
  const [draft, setDraft] = useState<GenDraft>(() => draftOf(answer.config))
  const [saved, setSaved] = useState<GenTableConfig>(answer.config)
  const [errors, setErrors] = useState<ReadonlyMap<string, string>>(new Map())
  const [tab, setTab] = useState<TabKey>('basic')
  const [previewing, setPreviewing] = useState(false)
  const { config } = draft
  const dirty = JSON.stringify(config) !== JSON.stringify(saved)

  const change = (step: (d: GenDraft) => GenDraft) => setDraft(step)
  const changeColumn = useCallback((column: string, patch: Partial<GenColumn>) => setDraft((d) => setColumn(d, column, patch)), [])

  const configSave = useMutation({
    mutationFn: (sent: GenTableConfig) => genApi.saveConfig(tableId, sent),
    onSuccess: (answer, sent) => {
      // The server answers the settings as stored (the database facts of each column its own).
      const stored = answer?.config ?? sent
      setSaved(stored)
      // Compared with what was sent, not this render's settings: edits made while saving stay.
      setDraft((d) => (d.config === sent ? { ...d, config: stored } : d))
      void message.success(t('common.saveSuccess'))
      void queryClient.invalidateQueries({ queryKey: crudKeys.all(toolEntities.genTable) })
    },
    onError: (error) => {
      const found = errorsByPath(fieldErrorsOf(error))
      setErrors(found)
      // The server's message in red: what is wrong, in the page's language.
      showFailure(error)
      const first = found.keys().next()
      if (!first.done) setTab(tabOfPath(first.value))
    },
  })

  /** Whether the settings were saved: the preview waits for it. */
  const save = async (): Promise<boolean> => {
    setErrors(new Map())
    try {
      await configSave.mutateAsync(config)
      return true
    } catch {
      return false // onError showed why
    }
  }

  // The preview renders the saved settings: unsaved changes are saved first.
  const preview = async () => {
    if (!dirty || (await save())) setPreviewing(true)
  }

  const back = () => {
    if (!dirty) return onBack()
    modal.confirm({ title: t('crud.confirmTitle'), content: t('gen.discardConfirm'), onOk: onBack })
  }

  const errorOf = (path: string) => errors.get(path)
  const status = (path: string) => (errors.has(path) ? ('error' as const) : undefined)
  const columnNameAt = (path: string) => {
    const index = /^columns\.(\d+)\./.exec(path)?.[1]
    return index === undefined ? undefined : config.columns[Number(index)]?.column
  }

  const basic = (
    <Form layout="vertical" component="div">
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.tableName')} htmlFor="gen-table-name" validateStatus={status('tableName')} help={errorOf('tableName')}>
            <Input id="gen-table-name" value={tableName} readOnly variant="filled" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.tableComment')} htmlFor="gen-table-comment">
            <Input id="gen-table-comment" value={tableComment} readOnly variant="filled" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.entityKey')} htmlFor="gen-entity-key" required validateStatus={status('entityKey')} help={errorOf('entityKey') ?? t('gen.entityKeyHelp')}>
            <Input id="gen-entity-key" value={config.entityKey} onChange={(e) => change((d) => setEntityKey(d, e.target.value))} data-testid="gen-entity-key" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12} />
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.labelEn')} htmlFor="gen-label-en" required validateStatus={status('label.en_US')} help={errorOf('label.en_US')}>
            <Input id="gen-label-en" value={config.label.en_US} onChange={(e) => change((d) => setLabel(d, 'en_US', e.target.value))} />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.labelZh')} htmlFor="gen-label-zh" required validateStatus={status('label.zh_CN')} help={errorOf('label.zh_CN')}>
            <Input id="gen-label-zh" value={config.label.zh_CN} onChange={(e) => change((d) => setLabel(d, 'zh_CN', e.target.value))} />
          </Form.Item>
        </Col>
      </Row>
    </Form>
  )

  const generation = (
    <Form layout="vertical" component="div">
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.template')} validateStatus={status('template')} help={errorOf('template')}>
            <Radio.Group
              value={config.template}
              onChange={(e) => change((d) => setTemplate(d, e.target.value as GenTableConfig['template']))}
              options={[
                { value: 'plain', label: t('gen.template.plain') },
                { value: 'tree', label: t('gen.template.tree') },
              ]}
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          {config.template === 'tree' && (
            <Form.Item label={t('gen.treeParent')} htmlFor="gen-tree-parent" required validateStatus={status('treeParent')} help={errorOf('treeParent') ?? t('gen.treeParentHelp')}>
              <Select
                id="gen-tree-parent"
                value={config.treeParent ?? undefined}
                placeholder={t('gen.treeParentPlaceholder')}
                options={config.columns.filter((c) => !c.primaryKey).map((c) => ({ value: c.column, label: `${c.column} (${c.name})` }))}
                onChange={(column: string) => change((d) => setTreeParent(d, column))}
              />
            </Form.Item>
          )}
        </Col>
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.area')} htmlFor="gen-area" required validateStatus={status('area')} help={errorOf('area')}>
            <Select
              id="gen-area"
              value={config.area}
              options={MENU_AREAS.map((area) => ({ value: area.key, label: localized(area.title) }))}
              onChange={(area: string) => change((d) => setArea(d, area))}
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={12} />
        <Col xs={24} md={12}>
          <Form.Item label={t('gen.path')} htmlFor="gen-path" required validateStatus={status('path')} help={errorOf('path') ?? t('gen.pathDerived')}>
            <Input id="gen-path" value={config.path} readOnly disabled />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item
            label={t('gen.permission')}
            htmlFor="gen-permission"
            required
            validateStatus={status('permission')}
            help={errorOf('permission') ?? (draft.permissionFollows ? t('gen.follows') : undefined)}
          >
            <Input id="gen-permission" value={config.permission} onChange={(e) => change((d) => setPermission(d, e.target.value))} />
          </Form.Item>
        </Col>
      </Row>
    </Form>
  )

  return (
    <Card
      title={t('gen.editTitle', { table: tableName })}
      extra={
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={back} data-testid="gen-back">
            {t('gen.back')}
          </Button>
          <Button icon={<EyeOutlined />} onClick={() => void preview()} disabled={configSave.isPending} data-testid="gen-preview-button">
            {t('gen.preview')}
          </Button>
          <Button type="primary" icon={<SaveOutlined />} loading={configSave.isPending} onClick={() => void save()} data-testid="gen-save">
            {t('common.save')}
          </Button>
        </Space>
      }
    >
      {errors.size > 0 && (
        <div data-testid="gen-errors">
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 12 }}
          title={t('gen.saveRefused')}
          description={
            <ul style={{ margin: 0, paddingInlineStart: 20 }}>
              {[...errors].map(([path, text]) => (
                <li key={path}>{columnNameAt(path) ? t('gen.errorAt', { column: columnNameAt(path), message: text }) : text}</li>
              ))}
            </ul>
          }
        />
        </div>
      )}
      <Tabs
        activeKey={tab}
        onChange={(key) => setTab(key as TabKey)}
        items={[
          { key: 'basic', label: <span data-testid="gen-tab-basic">{t('gen.tab.basic')}</span>, children: basic },
          {
            key: 'columns',
            label: <span data-testid="gen-tab-columns">{t('gen.tab.columns')}</span>,
            children: <ColumnsTable columns={config.columns} onChange={changeColumn} errors={errors} />,
          },
          { key: 'generation', label: <span data-testid="gen-tab-generation">{t('gen.tab.generation')}</span>, children: generation },
        ]}
      />
      {previewing && <PreviewDialog tableId={tableId} tableName={tableName} onClose={() => setPreviewing(false)} />}
    </Card>
  )
}
