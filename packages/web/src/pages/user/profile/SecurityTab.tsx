import { useEffect, useState } from 'react'
import { Alert, Button, Popconfirm, Space, Spin, Table, Tag, Typography } from 'antd'
import { PlusOutlined } from '@ant-design/icons'
import type { FactorSummary, OwnSession, SecondFactorState } from '@velo/shared'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { getSecurityOverview, newRecoveryCodes, removeFactor, signOutSession, startTotp, type TotpConfirmed } from '../../../api/profile'
import { useFeedback } from '../../../lib/feedback'
import { sessionActions } from '../../../session/sessionStore'
import { passkeysSupported } from '../../../api/passkeys'
import { AddAuthenticatorDialog } from './AddAuthenticatorDialog'
import { AddPasskeyDialog } from './AddPasskeyDialog'
import { RecoveryCodesDialog } from './RecoveryCodesDialog'

export const SECURITY_QUERY_KEY = ['user', 'profile', 'security'] as const

/** What the server makes at a time: the "8 of 10" of the codes left. */
const RECOVERY_CODES_ISSUED = 10
/** From here on the count reads as a warning: a user down to their last codes should make new ones. */
const RECOVERY_CODES_LOW = 2
const DATE_TIME = 'YYYY-MM-DD HH:mm:ss'

const when = (time: string | null | undefined) => (time ? dayjs(time).format(DATE_TIME) : '')

function SecondFactorNote({ state }: { state: SecondFactorState }) {
  const { t } = useTranslation()
  if (state.enrolled) return <Alert type="success" showIcon title={t(state.required ? 'profile.security.requiredMet' : 'profile.security.on')} data-testid="second-factor-state" />
  if (state.required) {
    // Past the due date the server already sends this user to the setup at their next sign-in.
    const text = state.due && dayjs(state.due).isAfter(dayjs()) ? t('profile.security.required', { date: when(state.due) }) : t('profile.security.requiredOverdue')
    return <Alert type="warning" showIcon title={text} data-testid="second-factor-state" />
  }
  return (
    <Typography.Paragraph type="secondary" data-testid="second-factor-state">
      {t('profile.security.recommended')}
    </Typography.Paragraph>
  )
}

/** The personal centre's Security tab: second factors, recovery codes and the user's own sessions. */
export function SecurityTab() {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()
  const overview = useQuery({ queryKey: SECURITY_QUERY_KEY, queryFn: getSecurityOverview })
  const [shownCodes, setShownCodes] = useState<string[] | null>(null)

  const refresh = () => queryClient.invalidateQueries({ queryKey: SECURITY_QUERY_KEY })
  // Asked for on the click, not as the dialog mounts: an effect runs twice in development, and each
  // start makes a new seed (and may ask the user for a second proof first).
  const totpStart = useMutation({ mutationFn: startTotp })
  // Forgetting the answer takes the seed out of memory once the dialog is done with it.
  const closeAddDialog = () => totpStart.reset()
  // onError is left out of each: the client already showed the server's reason (e.g. the last factor a role requires).
  const factorRemoval = useMutation({
    mutationFn: removeFactor,
    onSuccess: () => void message.success(t('profile.security.removed')),
    onSettled: refresh,
  })
  const codesRenewal = useMutation({
    mutationFn: newRecoveryCodes,
    onSuccess: ({ recoveryCodes }) => setShownCodes(recoveryCodes),
    onSettled: refresh,
  })
  const sessionSignOut = useMutation({
    mutationFn: signOutSession,
    onSuccess: () => void message.success(t('profile.security.signedOut')),
    onSettled: refresh,
  })

  const [addingPasskey, setAddingPasskey] = useState(false)
  function factorAdded({ recoveryCodes }: TotpConfirmed, added: string) {
    void message.success(added)
    if (recoveryCodes?.length) setShownCodes(recoveryCodes)
    void refresh()
  }
  function appAdded(answer: TotpConfirmed) {
    closeAddDialog()
    factorAdded(answer, t('profile.security.appAdded'))
  }
  function passkeyAdded(answer: TotpConfirmed) {
    setAddingPasskey(false)
    factorAdded(answer, t('profile.security.passkeyAdded'))
  }

  const secondFactor = overview.data?.secondFactor
  useEffect(() => {
    if (secondFactor) sessionActions.secondFactorChanged(secondFactor)
  }, [secondFactor])

  if (!overview.data) return <Spin spinning={overview.isPending} data-testid="security-loading" />
  const { factors, recoveryCodesLeft, sessions } = overview.data
  const kindLabel: Record<FactorSummary['kind'], string> = { totp: t('profile.security.kindTotp'), passkey: t('profile.security.kindPasskey') }

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }} data-testid="security-tab">
      <SecondFactorNote state={overview.data.secondFactor} />

      <section>
        <div className="security-heading">
          <Typography.Title level={5}>{t('profile.security.factors')}</Typography.Title>
          <Space wrap>
            {passkeysSupported() && (
              <Button icon={<PlusOutlined />} onClick={() => setAddingPasskey(true)} data-testid="passkey-add">
                {t('profile.security.addPasskey')}
              </Button>
            )}
            <Button icon={<PlusOutlined />} loading={totpStart.isPending} onClick={() => totpStart.mutate()} data-testid="factor-add">
              {t('profile.security.addApp')}
            </Button>
          </Space>
        </div>
        <Table<FactorSummary>
          size="small"
          rowKey="factorId"
          pagination={false}
          dataSource={factors}
          locale={{ emptyText: t('profile.security.noFactors') }}
          data-testid="factors-table"
          columns={[
            { key: 'name', title: t('profile.security.factorName'), dataIndex: 'name' },
            { key: 'kind', title: t('profile.security.factorKind'), render: (_, factor) => kindLabel[factor.kind] },
            { key: 'added', title: t('profile.security.added'), render: (_, factor) => when(factor.createTime) },
            { key: 'lastUsed', title: t('profile.security.lastUsed'), render: (_, factor) => when(factor.lastUsedTime) || t('profile.security.neverUsed') },
            {
              key: 'actions',
              width: 100,
              render: (_, factor) => (
                <Popconfirm
                  title={t('profile.security.removeTitle')}
                  description={t('profile.security.removeDescription')}
                  okText={t('profile.security.remove')}
                  okButtonProps={{ danger: true }}
                  cancelText={t('common.cancel')}
                  onConfirm={() => factorRemoval.mutateAsync(factor.factorId).catch(() => undefined)}
                >
                  <Button type="link" danger size="small" loading={factorRemoval.isPending && factorRemoval.variables === factor.factorId} data-testid={`factor-remove-${factor.factorId}`}>
                    {t('profile.security.remove')}
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      </section>

      {factors.length > 0 && (
        <section>
          <Typography.Title level={5}>{t('profile.security.recoveryCodes')}</Typography.Title>
          <Typography.Paragraph type="secondary">{t('profile.security.recoveryCodesAbout')}</Typography.Paragraph>
          <Space wrap>
            <Typography.Text type={recoveryCodesLeft <= RECOVERY_CODES_LOW ? 'warning' : undefined} data-testid="recovery-codes-left">
              {t('profile.security.recoveryCodesLeft', { left: recoveryCodesLeft, total: RECOVERY_CODES_ISSUED })}
            </Typography.Text>
            <Popconfirm
              title={t('profile.security.newRecoveryCodesTitle')}
              description={t('profile.security.newRecoveryCodesDescription')}
              okText={t('profile.security.newRecoveryCodes')}
              cancelText={t('common.cancel')}
              onConfirm={() => codesRenewal.mutateAsync().catch(() => undefined)}
            >
              <Button loading={codesRenewal.isPending} data-testid="recovery-codes-new">
                {t('profile.security.newRecoveryCodes')}
              </Button>
            </Popconfirm>
          </Space>
        </section>
      )}

      <section>
        <Typography.Title level={5}>{t('profile.security.sessions')}</Typography.Title>
        <Table<OwnSession>
          size="small"
          rowKey="sessionId"
          pagination={false}
          dataSource={sessions}
          scroll={{ x: 'max-content' }}
          data-testid="sessions-table"
          columns={[
            { key: 'browser', title: t('profile.security.browser'), dataIndex: 'browser' },
            { key: 'os', title: t('profile.security.os'), dataIndex: 'os' },
            { key: 'ipaddr', title: t('profile.security.ipaddr'), dataIndex: 'ipaddr' },
            { key: 'loginTime', title: t('profile.security.signedIn'), render: (_, session) => when(session.loginTime) },
            { key: 'lastSeen', title: t('profile.security.lastSeen'), render: (_, session) => when(session.lastSeen) },
            {
              key: 'actions',
              width: 110,
              render: (_, session) =>
                session.current ? (
                  <Tag color="blue" data-testid="session-current">
                    {t('profile.security.thisSession')}
                  </Tag>
                ) : (
                  <Button
                    type="link"
                    size="small"
                    loading={sessionSignOut.isPending && sessionSignOut.variables === session.sessionId}
                    onClick={() => sessionSignOut.mutate(session.sessionId)}
                    data-testid={`session-signout-${session.sessionId}`}
                  >
                    {t('profile.security.signOut')}
                  </Button>
                ),
            },
          ]}
        />
      </section>

      {totpStart.data && <AddAuthenticatorDialog seed={totpStart.data} onAdded={appAdded} onClose={closeAddDialog} />}
      {addingPasskey && <AddPasskeyDialog onAdded={passkeyAdded} onClose={() => setAddingPasskey(false)} />}
      {shownCodes && <RecoveryCodesDialog codes={shownCodes} onClose={() => setShownCodes(null)} />}
      <style>{`
        .security-heading { display: flex; align-items: center; justify-content: space-between; gap: 12px; margin-bottom: 8px; }
        .security-heading h5 { margin: 0; }
      `}</style>
    </Space>
  )
}
