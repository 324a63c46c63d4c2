import { defineEntity, registerEntities } from '@velo/shared'

// A definition with personal fields of two categories, for the tests of how the console shows,
// reveals and leaves out what the server masks (privacy.test.tsx, form/EntityForm.test.tsx).

const label = (en: string) => ({ en_US: en, zh_CN: en })

export const piiRider = defineEntity({
  key: 'webPiiRider',
  table: 'webPiiRider',
  path: '/pii/rider',
  permission: 'pii:rider',
  label: label('Riders'),
  idField: 'riderId',
  defaultSort: { field: 'riderId', order: 'asc' },
  fields: [
    { name: 'riderId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'nickname', kind: 'text', label: label('Nickname') },
    { name: 'email', kind: 'email', label: label('Email'), personal: 'contact' },
    { name: 'birthday', kind: 'date', label: label('Birthday'), personal: 'body' },
    { name: 'height', kind: 'number', label: label('Height'), personal: 'body' },
  ],
})
registerEntities(piiRider)
