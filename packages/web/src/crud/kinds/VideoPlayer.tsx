import { lazy, Suspense, useState } from 'react'
import { PlayCircleOutlined } from '@ant-design/icons'
import type { FieldDef, ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'

// The player's dialog loads when a video is first played (pointing at "Play" starts it): lists show
// the link, and most never play anything.
const loadDialog = () => import('./VideoDialog')
const VideoDialog = lazy(() => loadDialog().then((m) => ({ default: m.VideoDialog })))

export interface VideoProps {
  entity: ResolvedEntity
  field: FieldDef
  /** The stored name, a video's (isVideoFile). */
  fileName: string
}

/** "Play" beside a stored video, in a list cell, the details and the form: the video plays in a dialog. */
export function PlayVideoLink(props: VideoProps) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  return (
    <>
      <a className="crud-link" onClick={() => setOpen(true)} onMouseEnter={() => void loadDialog()} data-testid={`play-${props.field.name}`}>
        <PlayCircleOutlined /> {t('crud.play')}
      </a>
      {open && (
        <Suspense fallback={null}>
          <VideoDialog {...props} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  )
}
