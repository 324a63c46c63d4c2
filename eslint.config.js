import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/dist-*/**', '**/node_modules/**', 'data/**', '**/test-results/**', '**/playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The engine reads rows of tables named by definitions, and tests read envelopes: typed at the edges.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['packages/shared/**'],
    rules: {
      // shared runs in the browser and in Node: it imports no app code.
      'no-restricted-imports': ['error', { patterns: ['@velo/server', '@velo/web', '**/server/**', '**/web/**'] }],
    },
  },
)
