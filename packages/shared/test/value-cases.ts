import { defineEntity, type FieldDef, type FieldKind, type FieldProblem } from '../src'

// One table of values per field kind, as clients send them: what the shared value schema takes and
// what it refuses, with the problem. The server's tests run it through the request schemas and the
// web's through the form's rules, so both sides are held to the same answers (issue 13).

export interface ValueCase<F extends FieldDef = FieldDef> {
  field: F
  good: unknown[]
  bad: [value: unknown, problem: FieldProblem][]
}

const label = (en: string, zh: string) => ({ en_US: en, zh_CN: zh })

/** Every kind has a row: a kind added to FieldDef does not compile until its values are here. */
export const KIND_CASES: { [K in FieldKind]: ValueCase<Extract<FieldDef, { kind: K }>> } = {
  text: {
    field: { name: 'title', kind: 'text', label: label('Title', '标题'), min: 2, max: 10, pattern: /^[a-z]+$/, patternMessage: label('Lower-case letters only', '只能是小写字母') },
    good: ['abc', ' abc '],
    bad: [
      ['a', { rule: 'minLength', min: 2 }],
      ['abcdefghijk', { rule: 'maxLength', max: 10 }],
      ['ABC', { rule: 'pattern', message: label('Lower-case letters only', '只能是小写字母') }],
      [12, { rule: 'type', expected: 'text' }],
    ],
  },
  longText: { field: { name: 'summary', kind: 'longText', label: label('Summary', '摘要'), max: 20 }, good: ['twenty characters ok'], bad: [['x'.repeat(21), { rule: 'maxLength', max: 20 }]] },
  richText: { field: { name: 'body', kind: 'richText', label: label('Body', '正文'), max: 30 }, good: ['<p>Hi <b>there</b></p>'], bad: [[`<p>${'x'.repeat(30)}</p>`, { rule: 'maxLength', max: 30 }]] },
  number: {
    field: { name: 'count', kind: 'number', label: label('Count', '数量'), int: true, min: 1, max: 5 },
    good: [1, 5],
    bad: [
      [0, { rule: 'min', min: 1 }],
      [6, { rule: 'max', max: 5 }],
      [2.5, { rule: 'integer' }],
      ['3', { rule: 'type', expected: 'number' }],
    ],
  },
  money: {
    field: { name: 'price', kind: 'money', label: label('Price', '价格'), max: 100 },
    good: [0, 12.3, 99.99, 100],
    bad: [
      [12.345, { rule: 'decimals', places: 2 }],
      [-1, { rule: 'min', min: 0 }],
      [100.01, { rule: 'max', max: 100 }],
    ],
  },
  boolean: { field: { name: 'active', kind: 'boolean', label: label('Active', '启用') }, good: [true, false], bad: [['yes', { rule: 'type', expected: 'boolean' }]] },
  dict: { field: { name: 'state', kind: 'dict', dict: 'sys_normal_disable', label: label('State', '状态') }, good: ['0'], bad: [['x'.repeat(101), { rule: 'maxLength', max: 100 }]] },
  enum: {
    field: { name: 'size', kind: 'enum', label: label('Size', '尺寸'), options: [{ value: 'S', label: label('Small', '小') }, { value: 'L', label: label('Large', '大') }] },
    good: ['S', 'L'],
    bad: [['M', { rule: 'enum', values: ['S', 'L'] }]],
  },
  date: {
    field: { name: 'born', kind: 'date', label: label('Born', '出生日期') },
    good: ['2026-03-01'],
    bad: [
      ['2026-02-30', { rule: 'date' }],
      ['01/03/2026', { rule: 'date' }],
    ],
  },
  datetime: {
    field: { name: 'seen', kind: 'datetime', label: label('Seen', '看到') },
    good: ['2026-03-01T10:00:00+02:00', '2026-03-01T08:00:00.000Z'],
    bad: [['2026-03-01 10:00', { rule: 'datetime' }]],
  },
  image: {
    field: { name: 'photo', kind: 'image', label: label('Photo', '照片') },
    good: ['upload/2026/11/a.png', 'upload/b.JPG'],
    bad: [
      ['upload/a.gif', { rule: 'fileType', accept: ['jpg', 'jpeg', 'png'] }],
      ['../../etc/passwd.png', { rule: 'storedFile' }],
    ],
  },
  file: {
    field: { name: 'manual', kind: 'file', accept: ['pdf'], label: label('Manual', '说明书') },
    good: ['upload/2026/11/manual.pdf'],
    bad: [
      ['upload/x.exe', { rule: 'fileType', accept: ['pdf'] }],
      ['upload/a/../../b.pdf', { rule: 'storedFile' }],
    ],
  },
  version: {
    field: { name: 'firmware', kind: 'version', label: label('Firmware', '固件版本') },
    good: ['0.0.0', '1.20.300', '999.999.999'],
    bad: [
      ['1000.0.0', { rule: 'version' }],
      ['1.2', { rule: 'version' }],
      ['01.2.3', { rule: 'version' }],
    ],
  },
  letterCode: {
    field: { name: 'code', kind: 'letterCode', max: 2, label: label('Code', '代码') },
    good: ['NL', 'n'],
    bad: [
      ['ABC', { rule: 'letterCode', max: 2 }],
      ['A1', { rule: 'letterCode', max: 2 }],
    ],
  },
  email: {
    field: { name: 'mail', kind: 'email', label: label('Email', '邮箱') },
    good: ['a@b.co'],
    bad: [
      ['not-mail', { rule: 'email' }],
      [`${'a'.repeat(120)}@example.com`, { rule: 'maxLength', max: 128 }],
    ],
  },
  phone: { field: { name: 'phone', kind: 'phone', label: label('Phone', '电话') }, good: ['+31 20 123 4567'], bad: [['call me', { rule: 'phone' }]] },
  password: {
    field: { name: 'secret', kind: 'password', label: label('Secret', '密钥') },
    good: ['long-enough!'],
    bad: [
      ['short', { rule: 'password' }],
      ['with space 1', { rule: 'password' }],
    ],
  },
  reference: {
    field: { name: 'deptId', kind: 'reference', entity: 'dept', label: label('Department', '部门') },
    good: [1],
    bad: [
      [0, { rule: 'choose' }],
      [-3, { rule: 'choose' }],
      [1.5, { rule: 'integer' }],
    ],
  },
  referenceMany: {
    field: { name: 'roleIds', kind: 'referenceMany', entity: 'role', through: { table: 'caseRole', from: 'caseId', to: 'roleId' }, label: label('Roles', '角色') },
    good: [[], [1, 2]],
    bad: [[[0], { rule: 'choose' }]],
  },
  treeParent: { field: { name: 'parentId', kind: 'treeParent', label: label('Parent', '上级') }, good: [0, 5], bad: [[-1, { rule: 'choose' }]] },
  timeZone: {
    field: { name: 'zone', kind: 'timeZone', label: label('Time zone', '时区') },
    good: ['Europe/Amsterdam', 'UTC'],
    bad: [['Mars/Olympus', { rule: 'timeZone' }]],
  },
  geometry: {
    field: { name: 'area', kind: 'geometry', label: label('Area', '区域') },
    good: ['{"type":"Polygon","coordinates":[[[4,52],[5,52],[5,53],[4,52]]]}', '{"type":"Point","coordinates":[4.9,52.37],"radius":500}'],
    bad: [
      ['{"type":"Polygon","coordinates":[[[4,52],[5,52],[5,53],[4,53]]]}', { rule: 'geometry', reason: 'notClosed' }],
      ['{"type":"MultiPolygon","coordinates":[]}', { rule: 'geometry', reason: 'multiPolygon' }],
      ['{"type":"Point","coordinates":[4.9,52.37],"radius":60000}', { rule: 'geometry', reason: 'radius' }],
      ['not json', { rule: 'geometry', reason: 'json' }],
    ],
  },
}

/** "Required" in each kind's sense: blank text, no value, an empty list. */
export const REQUIRED_CASES: ValueCase[] = [
  { field: { name: 'mustName', kind: 'text', required: true, max: 20, label: label('Name', '名称') }, good: ['x'], bad: [['   ', { rule: 'required' }], [null, { rule: 'required' }]] },
  { field: { name: 'mustCount', kind: 'number', required: true, label: label('Amount', '金额') }, good: [0], bad: [[null, { rule: 'required' }]] },
  { field: { name: 'mustModels', kind: 'referenceMany', entity: 'role', through: { table: 'caseModel', from: 'caseId', to: 'modelId' }, required: true, label: label('Models', '型号') }, good: [[1]], bad: [[[], { rule: 'required' }]] },
  { field: { name: 'mustVersion', kind: 'version', required: true, label: label('App version', 'App 版本') }, good: ['1.0.0'], bad: [['', { rule: 'required' }]] },
]

/** Check digits (a text field's `check`): one mistyped digit or a swap of neighbours is refused; what is not digits is the pattern's. */
export const CHECK_CASES: ValueCase[] = [
  {
    field: { name: 'cardNumber', kind: 'text', check: 'luhn', max: 20, label: label('ICCID', 'ICCID') },
    good: ['89310410123456789016', '79927398713', 'not digits'],
    bad: [
      ['89310410123456789017', { rule: 'checkDigit', check: 'luhn' }],
      ['79927398731', { rule: 'checkDigit', check: 'luhn' }],
    ],
  },
]

export const VALUE_CASES: ValueCase[] = [...Object.values(KIND_CASES), ...REQUIRED_CASES, ...CHECK_CASES]

/** An entity of every case's field (not registered): request schemas are built per entity. */
export const valueCaseEntity = defineEntity({
  key: 'valueCase',
  table: 'valueCase',
  path: '/test/value-case',
  permission: 'test:valueCase',
  label: label('Value cases', '取值用例'),
  idField: 'caseId',
  defaultSort: { field: 'caseId', order: 'asc' },
  fields: [{ name: 'caseId', kind: 'number', int: true, label: label('ID', '编号'), readOnly: true }, ...VALUE_CASES.map((c) => c.field)],
})
