import { useState } from 'react'
import { App, Button, Upload, type UploadFile } from 'antd'
import { PlusOutlined, UploadOutlined } from '@ant-design/icons'
import { IMAGE_EXTENSIONS } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { storedBaseName, uploadFile, useStoredImageUrl } from '../api/files'
import type { InputProps } from './types'

const extensionOf = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase()
const bare = (ext: string) => ext.replace(/^\./, '').toLowerCase()

/** The extensions a field takes: images are jpg/jpeg/png (SPEC §5), files name theirs. */
export function acceptedExtensions(props: InputProps): string[] {
  return props.field.kind === 'file' ? props.field.accept.map(bare) : [...IMAGE_EXTENSIONS]
}

/**
 * One stored file (SPEC §5: one at a time), uploaded as soon as it is chosen; the value is the stored
 * name POST /common/upload answers. Images show as a picture card.
 */
export function StoredFileInput(props: InputProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const image = props.field.kind === 'image'
  const value = typeof props.value === 'string' && props.value ? props.value : null
  const { data: preview } = useStoredImageUrl(image ? value : null)
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
      ? [{ uid: value, name: storedBaseName(value), status: 'done', url: image ? preview : undefined }]
      : []

  return (
    <Upload
      id={props.id}
      accept={extensions.map((e) => `.${e}`).join(',')}
      maxCount={1}
      listType={image ? 'picture-card' : 'text'}
      fileList={fileList}
      disabled={props.disabled}
      beforeUpload={(file) => {
        if (!extensions.includes(extensionOf(file.name))) {
          void message.error(image ? t('crud.imageOnly') : t('crud.fileTypes', { types: extensions.join(', ') }))
          return Upload.LIST_IGNORE
        }
        void upload(file)
        return false // uploaded through the http client, with the session token
      }}
      onRemove={() => props.onChange?.('')}
    >
      {fileList.length === 0 &&
        (image ? (
          <div>
            <PlusOutlined />
            <div style={{ marginTop: 8 }}>{t('crud.uploadImage')}</div>
          </div>
        ) : (
          <Button icon={<UploadOutlined />}>{t('crud.uploadFile')}</Button>
        ))}
    </Upload>
  )
}
