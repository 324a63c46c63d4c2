import { fieldIssueOf, writeSchema, type FieldDef, type FieldIssue } from '@velo/shared'

// The shared schema behind a form's field rules (./rules.ts), in a chunk of its own: it carries zod,
// which a list page does not need until a form checks a value.

/** Schemas are built once per field: a form checks on every change. */
const schemas = new WeakMap<FieldDef, ReturnType<typeof writeSchema>>()
const formSchemaOf = (f: FieldDef) => {
  let schema = schemas.get(f)
  if (!schema) schemas.set(f, (schema = writeSchema(f, 'form')))
  return schema
}

/** What the shared schema finds wrong with a value as it would be sent: null when it passes, 'other' for a problem it does not name. */
export function formIssue(f: FieldDef, wire: unknown): FieldIssue | 'other' | null {
  const result = formSchemaOf(f).safeParse(wire)
  if (result.success) return null
  return fieldIssueOf(result.error.issues[0]!.message) ?? 'other'
}
