import { describe, expect, it } from 'vitest'
import dayjs from 'dayjs'
import { gadget } from '../../test/gadget'
import { formFieldsFor, formPayload, initialFormValues, isLocked } from './formValues'

describe('form values', () => {
  it('leaves passwords out on modify and locks immutable fields there', () => {
    const add = formFieldsFor(gadget, 'add').map((f) => f.name)
    const edit = formFieldsFor(gadget, 'edit').map((f) => f.name)
    expect(add).toContain('secret')
    expect(edit).not.toContain('secret')
    expect(add).not.toContain('gadgetId')
    expect(add).not.toContain('createTime')
    const name = gadget.fieldMap.get('name')!
    expect(isLocked(name, 'edit')).toBe(true)
    expect(isLocked(name, 'add')).toBe(false)
  })

  it('starts an add form from the defaults and the preset, a modify form from the row', () => {
    const fields = formFieldsFor(gadget, 'add')
    const add = initialFormValues(fields, 'add', { status: '1' })
    expect(add.firmware).toBe('1.0.0')
    expect(add.status).toBe('1')
    const edit = initialFormValues(formFieldsFor(gadget, 'edit'), 'edit', { firmware: null, born: '2024-02-03' })
    expect(edit.firmware).toBeNull()
    expect(dayjs.isDayjs(edit.born)).toBe(true)
  })

  it('adds every field; modifies only what changed, never an immutable field', () => {
    const addFields = formFieldsFor(gadget, 'add')
    expect(formPayload(gadget, addFields, { name: ' abc ', born: dayjs('2024-02-03') }, 'add')).toMatchObject({ name: 'abc', born: '2024-02-03' })

    const editFields = formFieldsFor(gadget, 'edit')
    const original = { gadgetId: 5, name: 'abc', count: 2, roleIds: [1, 2], born: '2024-02-03', email: 'a@b.co' }
    const values = { name: 'changed', count: 3, roleIds: [2, 1], born: dayjs('2024-02-03'), email: 'a@b.co' }
    expect(formPayload(gadget, editFields, values, 'edit', original)).toEqual({ gadgetId: 5, count: 3 })
  })
})
