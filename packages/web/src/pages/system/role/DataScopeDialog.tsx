import { useMemo } from 'react'
import { Form, Modal, Select, Spin, Typography } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { allEntities, entityByKey, systemEntities, scopeReach, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { deptTree, setRoleDataScope, systemKeys } from '../../../api/system'
import { crudApi, crudKeys } from '../../../crud/api/crudApi'
import { useDict } from '../../../crud/api/dicts'
import { dictOption } from '../../../crud/kinds/options'
import { TreeCheck } from '../TreeCheck'
import { useAllEntities } from '../../../entities/areas'
import { useFeedback } from '../../../lib/feedback'

const role = systemEntities.role
/** The data scope whose departments are picked by hand. */
const CUSTOM = '2'

interface Values {
  dataScope: string
  deptIds: number[]
}

/** A role's data scope (SPEC §6): all, custom departments, own department, department and below, self only. */
export function DataScopeDialog({ roleRow, onClose }: { roleRow: Pick<ApiRowOf<typeof role>, 'roleId' | 'roleName'>; onClose: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()
  const [form] = Form.useForm<Values>()
  const { roleId } = roleRow
  const scopeSave = useMutation({
    mutationFn: ({ dataScope, deptIds }: Values) => setRoleDataScope(roleId, dataScope, dataScope === CUSTOM ? (deptIds ?? []) : []),
    onSuccess: () => {
      void message.success(t('crud.editSuccess'))
      void queryClient.invalidateQueries({ queryKey: crudKeys.all(role) })
      onClose()
    },
    // onError left out: the client showed why.
  })
  const loaded = useQuery({ queryKey: crudKeys.row(role, roleId), queryFn: () => crudApi(role).get(roleId), gcTime: 0 })
  const scopes = useDict('sys_data_scope')
  const depts = useQuery({ queryKey: systemKeys.deptTree, queryFn: deptTree, staleTime: 60_000 })
  const scope = Form.useWatch('dataScope', form)

  async function save() {
    const values = await form.validateFields().catch(() => null)
    if (!values) return
    scopeSave.mutate(values)
  }

  return (
    <Modal
      open
      title={t('role.dataScopeTitle', { name: roleRow.roleName })}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      onOk={() => void save()}
      okButtonProps={{ disabled: !loaded.data }}
      confirmLoading={scopeSave.isPending}
      onCancel={onClose}
      destroyOnHidden
      mask={{ closable: false }}
      width={560}
    >
      {!loaded.data ? (
        <Spin spinning style={{ display: 'block', padding: 48 }} />
      ) : (
        <Form<Values>
          form={form}
          name="role-data-scope"
          layout="vertical"
          initialValues={{ dataScope: loaded.data.dataScope, deptIds: loaded.data.deptIds ?? [] }}
          data-testid="data-scope-form"
        >
          <Form.Item name="dataScope" label={t('role.dataScope')} rules={[{ required: true }]}>
            <Select options={(scopes.data ?? []).map(dictOption).map(({ value, label }) => ({ value: String(value), label }))} loading={scopes.isPending} data-testid="data-scope-select" />
          </Form.Item>
          {scope && <ScopeExplained scope={scope} />}
          {scope === CUSTOM && (
            <Form.Item name="deptIds" label={t('role.dataScopeDepts')} extra={t('role.dataScopeDeptsHelp')}>
              <TreeCheck nodes={depts.data} loading={depts.isPending} mode="checked" testId="data-scope-depts" />
            </Form.Item>
          )}
        </Form>
      )}
    </Modal>
  )
}

/**
 * What a scope limits, said from the definitions (docs/entity-engine.md › Data scope): the pages
 * whose rows belong to departments, to the departments' countries, or to a person. The rest
 * (settings, catalogues, content for every market) is not limited by any scope.
 */
function ScopeExplained({ scope }: { scope: string }) {
  const { t, i18n } = useTranslation()
  // It names every page a scope limits, so it reads every area's definitions.
  useAllEntities()
  const lang = i18n.language === 'zh_CN' ? 'zh_CN' : 'en_US'
  const groups = useMemo(() => {
    const byKey = (key: string) => {
      try {
        return entityByKey(key)
      } catch {
        return undefined
      }
    }
    const named = { dept: [] as string[], country: [] as string[], person: [] as string[] }
    for (const e of allEntities()) {
      const reach = scopeReach(e, byKey)
      for (const k of ['dept', 'country', 'person'] as const) if (reach[k] && !named[k].includes(e.label[lang])) named[k].push(e.label[lang])
    }
    return named
  }, [lang])
  const line = (key: 'dept' | 'country' | 'person') =>
    groups[key].length ? (
      <li data-testid={`data-scope-limits-${key}`}>
        {t(`role.scopeLimits.${key}`)} {groups[key].join(t('role.scopeListSeparator'))}
      </li>
    ) : null
  return (
    <div data-testid="data-scope-explained" style={{ marginBottom: 16 }}>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 4 }}>
        {t(`role.scopeExplain.${scope}`, { defaultValue: '' })}
      </Typography.Paragraph>
      {scope !== '1' && (
        <ul style={{ paddingInlineStart: 20, margin: 0, color: 'rgba(0,0,0,0.55)' }}>
          {scope !== '5' && line('dept')}
          {scope !== '5' && line('country')}
          {line('person')}
          <li>{t('role.scopeLimits.none')}</li>
        </ul>
      )}
    </div>
  )
}
