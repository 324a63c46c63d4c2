import { useCallback, useEffect, useRef, useState } from 'react'
import { Alert, Button, Modal, Spin } from 'antd'
import { DownloadOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { downloadEntityFile, entityFileLink, type FileLink } from '../api/files'
import type { VideoProps } from './VideoPlayer'
import './inputTexts'

/** A link this close to its end is asked again rather than trusted for another range request. */
const LINK_MARGIN_MS = 30_000

/**
 * The video from a signed link (the <video> element cannot send the token; entityFileLink), with
 * the browser's controls: it streams and seeks by byte ranges. A link lasts ten minutes, so a player
 * that fails after that (paused, then seeking) gets a new one and goes on where it was.
 */
export function VideoDialog({ entity, field, fileName, onClose }: VideoProps & { onClose: () => void }) {
  const { t } = useTranslation()
  const video = useRef<HTMLVideoElement>(null)
  const [link, setLink] = useState<FileLink | null>(null)
  const [unplayable, setUnplayable] = useState(false)
  const resumeAt = useRef<number | null>(null)
  const alive = useRef(true)

  const load = useCallback(() => {
    entityFileLink(entity, field.name, fileName).then(
      (answer) => alive.current && setLink(answer),
      // The client said why (no right, gone); the dialog has nothing to play.
      () => alive.current && onClose(),
    )
  }, [entity, field.name, fileName, onClose])
  useEffect(() => {
    alive.current = true
    load()
    return () => {
      alive.current = false
    }
  }, [load])

  const failed = () => {
    if (link && Date.parse(link.expiresAt) - Date.now() < LINK_MARGIN_MS && resumeAt.current === null) {
      resumeAt.current = video.current?.currentTime ?? 0
      load()
      return
    }
    // Within its time the link was good: the browser cannot play this file (a codec it lacks).
    setUnplayable(true)
  }
  const resume = () => {
    if (resumeAt.current !== null && video.current) video.current.currentTime = resumeAt.current
    resumeAt.current = null
  }

  return (
    <Modal open title={localized(field.label)} footer={null} onCancel={onClose} width={820} destroyOnHidden className="crud-video-dialog">
      {unplayable ? (
        <Alert
          type="warning"
          showIcon
          title={t('crud.videoUnplayable')}
          action={
            <Button size="small" icon={<DownloadOutlined />} onClick={() => void downloadEntityFile(entity, field.name, fileName).catch(() => undefined)}>
              {t('crud.download')}
            </Button>
          }
        />
      ) : link ? (
        <video
          ref={video}
          key={link.url}
          src={link.url}
          controls
          autoPlay
          preload="metadata"
          onError={failed}
          onLoadedMetadata={resume}
          data-testid="video-player"
          className="crud-video"
        />
      ) : (
        <Spin spinning style={{ display: 'block', padding: 48 }} />
      )}
    </Modal>
  )
}
