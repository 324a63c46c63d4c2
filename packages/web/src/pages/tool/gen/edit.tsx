import { Button, Result, Spin } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { useTranslation } from 'react-i18next'
import { tagsActions } from '../../../layout/tags/tagsStore'
import { GEN_LIST_PATH, genApi, genKeys } from './genApi'
import { GenEditor } from './GenEditor'

/** The table of ?tableId=12, or null for a missing or malformed one. */
function tableIdOf(value: string | null): number | null {
  const id = Number(value)
  return value && Number.isSafeInteger(id) && id > 0 ? id : null
}

/**
 * The fixed route /tool/gen/edit?tableId=… (SPEC §2, titled route.genEdit): one imported table's
 * generation settings. Back closes the tab and returns to the list, as RuoYi's 返回 does.
 */
export default function GenEditPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const [search] = useSearchParams()
  const tableId = tableIdOf(search.get('tableId'))
  const answer = useQuery({
    queryKey: genKeys.config(tableId ?? 0),
    queryFn: () => genApi.config(tableId!),
    enabled: tableId !== null,
    // Settings being edited are never replaced behind the user's back.
    refetchOnWindowFocus: false,
    gcTime: 0,
  })

  const back = () => {
    void navigate(GEN_LIST_PATH)
    tagsActions.del({ path: pathname })
  }

  if (tableId === null) return <Result status="warning" subTitle={t('gen.noTable')} extra={<Button onClick={back}>{t('gen.back')}</Button>} />
  if (answer.isError) return <Result status="warning" subTitle={t('gen.configFailed')} extra={<Button onClick={back}>{t('gen.back')}</Button>} />
  if (!answer.data) return <Spin spinning style={{ display: 'block', padding: 48 }} />
  // A kept-alive page opened again for another table starts over with that table's settings.
  return <GenEditor key={tableId} answer={answer.data} onBack={back} />
}
