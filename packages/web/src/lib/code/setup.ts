import { autocompletion } from '@codemirror/autocomplete'
import { javascript } from '@codemirror/lang-javascript'
import { PostgreSQL, SQLite, sql } from '@codemirror/lang-sql'
import { Compartment, EditorState, type Extension } from '@codemirror/state'
import { EditorView, keymap } from '@codemirror/view'
import { basicSetup } from 'codemirror'

// CodeMirror 6 with the languages the console edits or shows (SQL for SQL execution, TypeScript
// for the code generator's preview): loaded as a chunk of its own by the first editor that shows.

export { Compartment, EditorState, EditorView, keymap }

export interface CodeLanguage {
  kind: 'sql' | 'typescript' | 'markdown'
  /** SQL: the database's dialect and its tables' columns for completion. */
  dialect?: 'sqlite' | 'postgres'
  schema?: Record<string, string[]>
}

export function languageExtension(language: CodeLanguage): Extension {
  if (language.kind === 'sql') {
    return [
      sql({ dialect: language.dialect === 'postgres' ? PostgreSQL : SQLite, schema: language.schema ?? {}, upperCaseKeywords: true }),
      autocompletion({ activateOnTyping: true }),
    ]
  }
  if (language.kind === 'typescript') return javascript({ typescript: true })
  return []
}

/** Colours from the console's antd theme (light or dark), so the editor looks like the rest of the page. */
export function themeExtension(colors: { background: string; text: string; border: string; gutter: string; selection: string }, dark: boolean): Extension {
  return EditorView.theme(
    {
      '&': { backgroundColor: colors.background, color: colors.text, border: `1px solid ${colors.border}`, borderRadius: '6px' },
      '.cm-gutters': { backgroundColor: colors.gutter, color: colors.text, borderRight: `1px solid ${colors.border}` },
      '.cm-content': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', caretColor: colors.text },
      '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: colors.selection },
      '&.cm-focused': { outline: 'none' },
    },
    { dark },
  )
}

export { basicSetup }
