import { theme } from 'antd'
import { useEffect, useRef, useState } from 'react'
import type { CodeLanguage } from './setup'

type Setup = typeof import('./setup')

let loading: Promise<Setup> | undefined
/** The CodeMirror chunk, downloaded once; a failed download is tried again by the next editor. */
function loadSetup(): Promise<Setup> {
  loading ??= import('./setup').catch((error: unknown) => {
    loading = undefined
    throw error
  })
  return loading
}

export interface CodeEditorProps {
  value: string
  onChange?: (value: string) => void
  language: CodeLanguage
  readOnly?: boolean
  /** Ctrl/Cmd+Enter (run the statement). */
  onSubmit?: () => void
  minHeight?: number
  maxHeight?: number
  /** The accessible name of the editing area. */
  ariaLabel?: string
  testId?: string
}

/**
 * A code editor (CodeMirror 6: highlighting, line numbers, brackets, search, completion) that
 * follows the console's light or dark theme. Until its chunk arrives it shows the text as is.
 */
export function CodeEditor({ value, onChange, language, readOnly, onSubmit, minHeight = 160, maxHeight = 480, ariaLabel, testId }: CodeEditorProps) {
  const box = useRef<HTMLDivElement>(null)
  const view = useRef<import('@codemirror/view').EditorView | null>(null)
  const setupRef = useRef<Setup | null>(null)
  const languageSlot = useRef<import('@codemirror/state').Compartment | null>(null)
  const themeSlot = useRef<import('@codemirror/state').Compartment | null>(null)
  const latest = useRef({ onChange, onSubmit })
  latest.current = { onChange, onSubmit }
  const [ready, setReady] = useState(false)
  const { token } = theme.useToken()
  const dark = isDark(token.colorBgContainer)
  const colors = { background: token.colorBgContainer, text: token.colorText, border: token.colorBorder, gutter: token.colorFillQuaternary, selection: token.controlItemBgActive }
  const languageKey = JSON.stringify(language)
  const themeKey = JSON.stringify([colors, dark])

  useEffect(() => {
    let gone = false
    void loadSetup().then((setup) => {
      if (gone || !box.current) return
      setupRef.current = setup
      languageSlot.current = new setup.Compartment()
      themeSlot.current = new setup.Compartment()
      const state = setup.EditorState.create({
        doc: value,
        extensions: [
          setup.keymap.of([{ key: 'Mod-Enter', run: () => (latest.current.onSubmit?.(), true) }]),
          setup.basicSetup,
          setup.EditorView.lineWrapping,
          languageSlot.current.of(setup.languageExtension(language)),
          themeSlot.current.of(setup.themeExtension(colors, dark)),
          setup.EditorState.readOnly.of(!!readOnly),
          setup.EditorView.editable.of(!readOnly),
          setup.EditorView.contentAttributes.of({ 'aria-label': ariaLabel ?? '', 'data-testid': testId ? `${testId}-content` : '' }),
          setup.EditorView.theme({ '&': { minHeight: `${minHeight}px`, maxHeight: `${maxHeight}px` }, '.cm-scroller': { overflow: 'auto' } }),
          setup.EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange?.(update.state.doc.toString())
          }),
        ],
      })
      view.current = new setup.EditorView({ state, parent: box.current })
      setReady(true)
    })
    return () => {
      gone = true
      view.current?.destroy()
      view.current = null
    }
    // The editor is made once; value, language and theme follow through the effects below.
  }, [readOnly])

  // A value set from outside (a statement picked from the history, another file's tab).
  useEffect(() => {
    const v = view.current
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } })
  }, [value, ready])

  useEffect(() => {
    const setup = setupRef.current
    if (setup && view.current && languageSlot.current) view.current.dispatch({ effects: languageSlot.current.reconfigure(setup.languageExtension(language)) })
  }, [languageKey, ready])

  useEffect(() => {
    const setup = setupRef.current
    if (setup && view.current && themeSlot.current) view.current.dispatch({ effects: themeSlot.current.reconfigure(setup.themeExtension(colors, dark)) })
  }, [themeKey, ready])

  return (
    <div data-testid={testId} data-ready={ready ? 'true' : 'false'}>
      <div ref={box} />
      {!ready && (
        <pre style={{ minHeight, margin: 0, padding: 8, border: `1px solid ${token.colorBorder}`, borderRadius: 6, whiteSpace: 'pre-wrap', fontFamily: 'ui-monospace, monospace' }}>{value}</pre>
      )}
    </div>
  )
}

/** Whether a background colour is dark (antd's dark algorithm gives a dark container). */
function isDark(color: string): boolean {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)?.[1]
  if (!hex) return /rgb\(\s*(\d+)/.test(color) ? Number(/rgb\(\s*(\d+)/.exec(color)![1]) < 100 : false
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16))
  return 0.299 * r! + 0.587 * g! + 0.114 * b! < 128
}
