import { defineEntity } from '../entity/define'
import { createTime, idField, status } from './common-fields'

/** Help centre questions the app shows (SPEC §3 FAQ): a whole module is this, a migration and a menu row. */
export const faq = defineEntity({
  key: 'faq',
  table: 'contentFaq',
  path: '/content/faq',
  permission: 'content:faq',
  label: { en_US: 'Help centre FAQ', zh_CN: '帮助中心' },
  singular: { en_US: 'FAQ', zh_CN: '常见问题' },
  idField: 'faqId',
  labelField: 'title',
  defaultSort: { field: 'orderNum', order: 'asc' },
  fields: [
    idField('faqId'),
    {
      name: 'type',
      kind: 'enum',
      label: { en_US: 'Type', zh_CN: '类型' },
      required: true,
      max: 16,
      search: 'eq',
      options: [
        { value: 'riding', label: { en_US: 'Riding', zh_CN: '骑行' }, color: 'blue' },
        { value: 'battery', label: { en_US: 'Battery and charging', zh_CN: '电池与充电' }, color: 'green' },
        { value: 'app', label: { en_US: 'App and account', zh_CN: 'App 与账号' }, color: 'purple' },
        { value: 'warranty', label: { en_US: 'Warranty and repair', zh_CN: '质保与维修' }, color: 'orange' },
      ],
    },
    { name: 'title', kind: 'text', label: { en_US: 'Title', zh_CN: '标题' }, required: true, max: 200, search: 'like', sort: true },
    { name: 'introduction', kind: 'longText', label: { en_US: 'Introduction', zh_CN: '简介' }, max: 500 },
    { name: 'orderNum', kind: 'number', int: true, min: 0, max: 99999, label: { en_US: 'Sort', zh_CN: '排序' }, required: true, default: 0, sort: true },
    { name: 'content', kind: 'richText', label: { en_US: 'Content', zh_CN: '内容' }, required: true, list: false },
    status,
    createTime,
  ],
})
