import { useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { Button, Input, Popover, Space, Tooltip } from 'antd'
import { BoldOutlined, ItalicOutlined, LinkOutlined, OrderedListOutlined, UnorderedListOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import type { InputProps } from './types'
import './inputTexts'

// A small editor on the browser's own contenteditable: bold, italic, lists and links are what the
// product's texts use, and an editor library would weigh more than the whole list page.

const DROPPED_ELEMENTS = 'script,style,iframe,object,embed,link,meta'

/** The server sanitizes what it stores; this keeps a stored value from running code in the editor too. */
export function sanitizeHtml(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html')
  doc.querySelectorAll(DROPPED_ELEMENTS).forEach((el) => el.remove())
  doc.body.querySelectorAll('*').forEach((el) => {
    for (const attr of [...el.attributes]) {
      if (/^on/i.test(attr.name) || /^\s*javascript:/i.test(attr.value)) el.removeAttribute(attr.name)
    }
  })
  return doc.body.innerHTML
}

/** An editor left with no words and no pictures is empty, so "required" can see it. */
const isEmptyHtml = (el: HTMLElement) => !el.textContent?.trim() && !el.querySelector('img')

const linkTarget = (text: string) => (/^(https?:|mailto:)/i.test(text) ? text : `https://${text}`)

export function RichTextInput(props: InputProps) {
  const { t } = useTranslation()
  const editor = useRef<HTMLDivElement>(null)
  const selection = useRef<Range | null>(null)
  const [linkOpen, setLinkOpen] = useState(false)
  const [href, setHref] = useState('')
  const value = typeof props.value === 'string' ? props.value : ''

  // The editor owns its DOM while the user types; only a value from outside (load, reset) is written in.
  useLayoutEffect(() => {
    const el = editor.current
    if (el && el.innerHTML !== value && !(value === '' && isEmptyHtml(el))) el.innerHTML = sanitizeHtml(value)
  }, [value])

  const emit = () => {
    const el = editor.current
    if (el) props.onChange?.(isEmptyHtml(el) ? '' : el.innerHTML)
  }
  const run = (command: string, argument?: string) => {
    editor.current?.focus()
    const range = selection.current
    if (range) {
      window.getSelection()?.removeAllRanges()
      window.getSelection()?.addRange(range)
    }
    document.execCommand(command, false, argument)
    emit()
  }
  const keepSelection = () => {
    const current = window.getSelection()
    selection.current = current?.rangeCount && editor.current?.contains(current.anchorNode) ? current.getRangeAt(0) : null
  }

  const tool = (label: string, icon: ReactNode, command: string) => (
    <Tooltip title={label}>
      <Button
        type="text"
        size="small"
        icon={icon}
        aria-label={label}
        disabled={props.disabled}
        // mousedown would move the focus, and the selection with it, out of the editor.
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => {
          keepSelection()
          run(command)
        }}
      />
    </Tooltip>
  )

  const addLink = () => {
    setLinkOpen(false)
    if (href.trim()) run('createLink', linkTarget(href.trim()))
    setHref('')
  }

  return (
    <div className={`crud-rich-text${props.disabled ? ' disabled' : ''}`}>
      <Space size={2} className="crud-rich-text-toolbar">
        {tool(t('crud.bold'), <BoldOutlined />, 'bold')}
        {tool(t('crud.italic'), <ItalicOutlined />, 'italic')}
        {tool(t('crud.bulletList'), <UnorderedListOutlined />, 'insertUnorderedList')}
        {tool(t('crud.numberedList'), <OrderedListOutlined />, 'insertOrderedList')}
        <Popover
          open={linkOpen}
          onOpenChange={(open) => {
            if (open) keepSelection()
            setLinkOpen(open)
          }}
          trigger="click"
          content={
            <Space.Compact>
              <Input autoFocus value={href} placeholder={t('crud.linkAddress')} onChange={(e) => setHref(e.target.value)} onPressEnter={addLink} />
              <Button type="primary" onClick={addLink} icon={<LinkOutlined />} aria-label={t('crud.link')} />
            </Space.Compact>
          }
        >
          <Tooltip title={t('crud.link')}>
            <Button type="text" size="small" icon={<LinkOutlined />} aria-label={t('crud.link')} disabled={props.disabled} onMouseDown={(e) => e.preventDefault()} />
          </Tooltip>
        </Popover>
      </Space>
      <div
        ref={editor}
        id={props.id}
        className="crud-rich-text-body"
        contentEditable={!props.disabled}
        suppressContentEditableWarning
        role="textbox"
        aria-multiline="true"
        onInput={emit}
        onBlur={emit}
      />
    </div>
  )
}
