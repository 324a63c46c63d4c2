import { createRef, type Ref } from 'react'
import { afterAll, describe, expect, it } from 'vitest'
import { Form, type FormInstance } from 'antd'
import { render } from '@testing-library/react'
import type { FieldProblem, Label } from '@velo/shared'
import i18n from '../../i18n'
import { VALUE_CASES, type ValueCase } from '../../../../shared/test/value-cases'
import { fieldRules } from './kindTable'
import { problemText } from './rules'

// The form refuses what the server refuses: the same table of values per kind that the server's
// request schemas are tested with (shared/test/value-cases.ts) goes through the form's antd rules
// here, and each refusal is said in the page's language.

/** A control that holds any value: the rules, not an input, are under test. */
const Holder = (_props: { value?: unknown; onChange?: (v: unknown) => void }) => null

function renderForm() {
  const form = createRef<FormInstance>()
  render(
    <Form ref={form as Ref<FormInstance>}>
      {VALUE_CASES.map((c) => (
        <Form.Item key={c.field.name} name={c.field.name} rules={fieldRules(c.field, i18n.t)} validateFirst>
          <Holder />
        </Form.Item>
      ))}
    </Form>,
  )
  return form.current!
}

/** What the form says about `value` in the field (the first failing rule, as EntityForm shows it). */
async function errorsFor(form: FormInstance, c: ValueCase, value: unknown): Promise<string[]> {
  form.setFieldsValue({ [c.field.name]: value })
  try {
    await form.validateFields([c.field.name])
    return []
  } catch (error) {
    return (error as { errorFields: { errors: string[] }[] }).errorFields.flatMap((f) => f.errors)
  }
}

const say = (problem: FieldProblem, label: Label) => problemText({ ...problem, label }, i18n.t)
const cases = VALUE_CASES.map((c) => [c.field.kind, c.field.name, c] as const)

afterAll(() => i18n.changeLanguage('en_US'))

describe.each(['en_US', 'zh_CN'])('the form checks every kind as the server does (%s)', (language) => {
  it.each(cases)('%s (%s): takes the good values, refuses the bad ones with the problem in words', async (_kind, _name, c) => {
    await i18n.changeLanguage(language)
    const form = renderForm()
    for (const value of c.good) expect(await errorsFor(form, c, value), JSON.stringify(value)).toEqual([])
    for (const [value, problem] of c.bad) {
      const text = say(problem, c.field.label)
      expect(await errorsFor(form, c, value), JSON.stringify(value)).toEqual([text])
      // A sentence in the page's language, never a key or a zod default.
      expect(text).not.toMatch(/^crud\.|Invalid input|\{\{/)
      if (language === 'zh_CN') expect(text).toMatch(/[\u4e00-\u9fff]/)
    }
  })
})

describe('what the form used to let through', () => {
  it.each([
    ['price', 12.345, 'Price may have at most 2 decimal places'],
    ['firmware', '1000.0.0', 'Firmware must look like 1.2.3, each part 0 to 999'],
    ['code', 'A1', 'Code must be 1 to 2 letters'],
    ['size', 'M', 'Size must be one of: S, L'],
    ['photo', 'upload/a.gif', 'Photo must be a file of type jpg, jpeg, png'],
    ['born', '2026-02-30', 'Born must be a date'],
    ['deptId', 0, 'Please select Department'],
  ])('%s %j → %s', async (name, value, message) => {
    await i18n.changeLanguage('en_US')
    const form = renderForm()
    expect(await errorsFor(form, VALUE_CASES.find((c) => c.field.name === name)!, value)).toEqual([message])
  })
})
