// ESLint 9.9 ships no type declarations (they came with 9.10); the floors tests (web src/test, server test) use this much of its API.
declare module 'eslint' {
  export interface LintMessage {
    ruleId: string | null
    message: string
  }
  export class ESLint {
    constructor(options: { cwd: string })
    lintText(code: string, options: { filePath: string }): Promise<{ messages: LintMessage[] }[]>
  }
}
