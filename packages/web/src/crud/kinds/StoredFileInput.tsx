import { formatBytes } from '@velo/shared'
import { useEffect, useRef, useState } from 'react'
import { Button, Descriptions, Progress, Space, Typography, Upload, type UploadFile } from 'antd'
import { DeleteOutlined, PaperClipOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons'
import { DEFAULT_FILE_MAX_BYTES, IMAGE_EXTENSIONS } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { downloadEntityFile, isVideoFile, storedBaseName, type StoredFileInfo, uploadEntityFile, uploadFile, useStoredImageUrl } from '../api/files'
import type { FieldOf, InputProps } from './types'
import { PlayVideoLink } from './VideoPlayer'
import { useFeedback } from '../../lib/feedback'
import './inputTexts'

const extensionOf = (name: string) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '')
const bare = (ext: string) => ext.replace(/^\./, '').toLowerCase()

/** The extensions a field takes: images are jpg/jpeg/png (SPEC §5), files name theirs. */
export function acceptedExtensions(props: InputProps): string[] {
  return props.field.kind === 'file' ? props.field.accept.map(bare) : [...IMAGE_EXTENSIONS]
}

/**
 * One stored file (SPEC §5: one at a time), uploaded as soon as it is chosen. Images go to
 * POST /common/upload and show as a picture card; a `file` field has its own route, with its
 * extensions, size limit, progress and digests.
 */
export function StoredFileInput(props: InputProps) {
  return props.field.kind === 'file' ? <EntityFileInput {...(props as InputProps<FieldOf<'file'>>)} /> : <ImageInput {...props} />
}

function ImageInput(props: InputProps) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const value = typeof props.value === 'string' && props.value ? props.value : null
  const { data: preview } = useStoredImageUrl(value)
  const [uploading, setUploading] = useState<string | null>(null)
  const extensions = acceptedExtensions(props)

  async function upload(file: File) {
    setUploading(file.name)
    try {
      props.onChange?.((await uploadFile(file)).fileName)
    } catch {
      // The client showed why.
    } finally {
      setUploading(null)
    }
  }

  const fileList: UploadFile[] = uploading
    ? [{ uid: 'uploading', name: uploading, status: 'uploading' }]
    : value
      ? [{ uid: value, name: storedBaseName(value), status: 'done', url: preview }]
      : []

  return (
    <Upload
      id={props.id}
      accept={extensions.map((e) => `.${e}`).join(',')}
      maxCount={1}
      listType="picture-card"
      fileList={fileList}
      disabled={props.disabled}
      beforeUpload={(file) => {
        if (!extensions.includes(extensionOf(file.name))) {
          void message.error(t('crud.imageOnly'))
          return Upload.LIST_IGNORE
        }
        void upload(file)
        return false // uploaded through the http client, with the session token
      }}
      onRemove={() => props.onChange?.('')}
    >
      {fileList.length === 0 && (
        <div>
          <PlusOutlined />
          <div style={{ marginTop: 8 }}>{t('crud.uploadImage')}</div>
        </div>
      )}
    </Upload>
  )
}

type Sending = { name: string; size: number; sent: number; abort: AbortController }

/**
 * A `file` field: the file is checked here first (extension, size) so a wrong choice costs no
 * upload, then streamed to POST {path}/file/{field} with a progress bar and a cancel button. What the
 * server answered (original name, size, SHA-256) is shown under it, so the person uploading firmware
 * can compare the checksum with the vendor's before saving.
 */
function EntityFileInput(props: InputProps<FieldOf<'file'>>) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const { entity, field } = props
  const value = typeof props.value === 'string' && props.value ? props.value : null
  const extensions = acceptedExtensions(props)
  const maxBytes = field.maxBytes ?? DEFAULT_FILE_MAX_BYTES
  const [sending, setSending] = useState<Sending | null>(null)
  // What the server said about the file this form uploaded; a value loaded with the row has none.
  const [info, setInfo] = useState<StoredFileInfo | null>(null)
  const current = info && info.fileName === value ? info : null
  const mounted = useRef(true)
  const inFlight = useRef<AbortController | null>(null)
  useEffect(() => {
    mounted.current = true
    return () => {
      mounted.current = false
      // Closing the form cancels an upload still on its way.
      inFlight.current?.abort()
    }
  }, [])

  async function upload(file: File) {
    const abort = new AbortController()
    inFlight.current = abort
    setSending({ name: file.name, size: file.size, sent: 0, abort })
    try {
      const answer = await uploadEntityFile(entity, field.name, file, {
        signal: abort.signal,
        onProgress: (sent) => mounted.current && setSending((s) => (s && s.abort === abort ? { ...s, sent } : s)),
      })
      if (!mounted.current) return
      setInfo(answer)
      props.onChange?.(answer.fileName)
    } catch {
      // The http client showed why (or the upload was cancelled).
    } finally {
      if (inFlight.current === abort) inFlight.current = null
      if (mounted.current) setSending((s) => (s?.abort === abort ? null : s))
    }
  }

  function choose(file: File) {
    if (!extensions.includes(extensionOf(file.name))) {
      void message.error(t('crud.fileTypes', { types: extensions.join(', ') }))
      return
    }
    if (file.size > maxBytes) {
      void message.error(t('crud.fileTooLarge', { name: file.name, max: formatBytes(maxBytes) }))
      return
    }
    void upload(file)
  }

  const picker = (label: string) => (
    <Upload
      id={props.id}
      accept={extensions.map((e) => `.${e}`).join(',')}
      maxCount={1}
      showUploadList={false}
      disabled={props.disabled || !!sending}
      beforeUpload={(file) => {
        choose(file)
        return Upload.LIST_IGNORE // sent by uploadEntityFile, with the session token and progress
      }}
    >
      <Button icon={<UploadOutlined />} disabled={props.disabled || !!sending}>
        {label}
      </Button>
    </Upload>
  )

  return (
    <div className="crud-file-input" data-testid={`file-input-${field.name}`}>
      {sending ? (
        <div>
          <Space>
            <PaperClipOutlined />
            <span>{sending.name}</span>
            <Button size="small" onClick={() => sending.abort.abort()}>
              {t('crud.fileCancel')}
            </Button>
          </Space>
          <Progress percent={sending.size ? Math.floor((sending.sent / sending.size) * 100) : 0} status="active" aria-label={t('crud.fileProgress', { name: sending.name })} />
        </div>
      ) : value ? (
        <div>
          <Space wrap>
            <Typography.Link onClick={() => void downloadEntityFile(entity, field.name, value).catch(() => undefined)}>
              <PaperClipOutlined /> {current ? current.originalName : storedBaseName(value)}
            </Typography.Link>
            {/* Watched before the form is saved: the right video, and one the browser plays. */}
            {isVideoFile(value) && <PlayVideoLink entity={entity} field={field} fileName={value} />}
            {picker(t('crud.fileReplace'))}
            <Button icon={<DeleteOutlined />} disabled={props.disabled} onClick={() => props.onChange?.('')}>
              {t('crud.fileRemove')}
            </Button>
          </Space>
          {current && (
            <Descriptions
              size="small"
              column={1}
              style={{ marginTop: 8 }}
              items={[
                { key: 'size', label: t('crud.fileSize'), children: formatBytes(current.size) },
                {
                  key: 'sha256',
                  label: 'SHA-256',
                  children: (
                    <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
                      {current.sha256}
                    </Typography.Text>
                  ),
                },
              ]}
            />
          )}
        </div>
      ) : (
        picker(t('crud.uploadFile'))
      )}
      <div className="crud-file-hint">
        <Typography.Text type="secondary">{t('crud.fileLimits', { types: extensions.join(', '), max: formatBytes(maxBytes) })}</Typography.Text>
      </div>
    </div>
  )
}
