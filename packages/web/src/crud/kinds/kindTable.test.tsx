import { createRef, type Ref } from 'react'
import { describe, expect, it } from 'vitest'
import { Form, Input, type FormInstance } from 'antd'
import { render } from '@testing-library/react'
import type { FieldDef } from '@velo/shared'
import dayjs from 'dayjs'
import i18n from '../../i18n'
import { gadget } from '../../test/gadget'
import { fieldRules, kindOf, toFormValue, toWireValue } from './kindTable'

const field = (name: string): FieldDef => gadget.fieldMap.get(name) as FieldDef

/** The messages a real antd form shows for `value` in the field (the first failing rule, as EntityForm does). */
async function errorsFor(name: string, value: unknown): Promise<string[]> {
  const form = createRef<FormInstance>()
  render(
    <Form ref={form as Ref<FormInstance>}>
      <Form.Item name={name} rules={fieldRules(field(name), i18n.t)} validateFirst>
        <Input />
      </Form.Item>
    </Form>,
  )
  form.current!.setFieldsValue({ [name]: value })
  try {
    await form.current!.validateFields()
    return []
  } catch (error) {
    return (error as { errorFields: { errors: string[] }[] }).errorFields.flatMap((f) => f.errors)
  }
}

describe('form rules from definitions', () => {
  it('text: required, length and the definition pattern with its message', async () => {
    expect(await errorsFor('name', '  ')).toEqual(['Name is required'])
    expect(await errorsFor('name', 'a')).toEqual(['Name must be at least 2 characters'])
    expect(await errorsFor('name', 'abcdefghijk')).toEqual(['Name must be at most 10 characters'])
    expect(await errorsFor('name', 'Abc')).toEqual(['Lower-case letters only'])
    expect(await errorsFor('name', 'abc')).toEqual([])
  })

  it('numbers and money: bounds and whole numbers', async () => {
    expect(await errorsFor('count', 0)).toEqual(['Count must be at least 1'])
    expect(await errorsFor('count', 6)).toEqual(['Count must be at most 5'])
    expect(await errorsFor('count', 2.5)).toEqual(['Count must be a whole number'])
    expect(await errorsFor('price', 100.5)).toEqual(['Price must be at most 100'])
    expect(await errorsFor('price', undefined)).toEqual([])
  })

  it('version 0.0.0 to 999.999.999, letter codes of 1 to max letters', async () => {
    expect(await errorsFor('firmware', '1.2.3')).toEqual([])
    expect(await errorsFor('firmware', '999.999.999')).toEqual([])
    expect(await errorsFor('firmware', '1000.0.0')).toHaveLength(1)
    expect(await errorsFor('firmware', '1.2')).toHaveLength(1)
    expect(await errorsFor('code', 'AB')).toEqual([])
    expect(await errorsFor('code', 'ABC')).toEqual(['Code must be 1 to 2 letters'])
    expect(await errorsFor('code', 'A1')).toHaveLength(1)
    expect(kindOf(field('code')).normalize?.('nl')).toBe('NL')
  })

  it('email, phone and password use the shared patterns', async () => {
    expect(await errorsFor('email', 'not-mail')).toEqual(['Please enter a valid email'])
    expect(await errorsFor('email', 'a@b.co')).toEqual([])
    expect(await errorsFor('phone', 'x')).toEqual(['Please enter a valid phone number'])
    expect(await errorsFor('phone', '+31 20 123 4567')).toEqual([])
    expect(await errorsFor('secret', 'short')).toEqual(['Password: 6 to 20 letters, digits or special characters'])
    expect(await errorsFor('secret', 'long-enough!')).toEqual([])
  })

  it('time zones come from the runtime list; required lists need one item', async () => {
    expect(await errorsFor('zone', 'Europe/Amsterdam')).toEqual([])
    expect(await errorsFor('zone', 'Mars/Olympus')).toEqual(['Time zone must be a time zone from the list'])
    expect(await errorsFor('roleIds', [])).toEqual(['Roles is required'])
    expect(await errorsFor('roleIds', [1])).toEqual([])
  })
})

describe('values on the wire', () => {
  it('dates travel as YYYY-MM-DD, instants as ISO in UTC, text trimmed', () => {
    expect(toWireValue(field('born'), dayjs('2024-03-05'))).toBe('2024-03-05')
    const instant = dayjs('2024-03-05T10:20:30.000Z')
    expect(toWireValue(field('seen'), instant)).toBe('2024-03-05T10:20:30.000Z')
    expect(toWireValue(field('name'), '  abc ')).toBe('abc')
    expect(toWireValue(field('secret'), ' pass word ')).toBe(' pass word ')
  })

  it('dates become dayjs values in the form', () => {
    const born = toFormValue(field('born'), '2024-03-05')
    expect(dayjs.isDayjs(born)).toBe(true)
    expect((born as dayjs.Dayjs).format('YYYY-MM-DD')).toBe('2024-03-05')
    expect(toFormValue(field('born'), null)).toBeNull()
    expect(toFormValue(field('name'), 'abc')).toBe('abc')
  })
})
