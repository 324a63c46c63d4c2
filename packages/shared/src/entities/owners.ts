import type { ScopeDef } from '../entity/types'

// Why an entity's rows belong to no one (scope: { none }), said once for the entities that share
// the reason. docs/entity-engine.md › Data scope.

/** System settings: the menus, roles, dictionaries, configuration and countries themselves. */
export const SYSTEM_SETTINGS: ScopeDef = {
  none: {
    en_US: 'System settings are one for the whole company: whoever holds the page’s rights keeps them, whatever their department',
    zh_CN: '系统设置全公司共用：拥有该页面权限者维护，与所属部门无关',
  },
}

/** The console's own records of what staff did: read by those who hold the monitoring rights. */
export const CONSOLE_RECORDS: ScopeDef = {
  none: {
    en_US: 'A record of the console itself (sign-ins, operations, mail, generated code): read by those who hold the monitoring or tool rights, for every department',
    zh_CN: '控制台自身的记录（登录、操作、邮件、代码生成）：由拥有监控或工具权限者查看，覆盖所有部门',
  },
}

/** Products and parts: the same models, firmware and templates in every market. */
export const PRODUCT_CATALOGUE: ScopeDef = {
  none: {
    en_US: 'The product catalogue (models, parts, firmware, device templates and campaigns) is the same in every market; the devices a campaign or push reaches are scoped through each device',
    zh_CN: '产品目录（车型、部件、固件、设备模板与升级任务）在各市场相同；任务或推送涉及的设备按每台设备的数据权限限定',
  },
}

/** Content of the riders' app that is not aimed at one country. */
export const APP_CONTENT: ScopeDef = {
  none: {
    en_US: 'App content for every market (its language, not a country, says who reads it)',
    zh_CN: '面向所有市场的应用内容（由语言而非国家决定读者）',
  },
}

/** Production before any bike has a rider: orders, frame numbers and the factory line. */
export const PRODUCTION: ScopeDef = {
  none: {
    en_US: 'Production for the factory: orders, frame numbers and end-of-line tests come before any bike has a rider or a country (an order’s sales region is free text, not a country)',
    zh_CN: '工厂生产：订单、车架号与下线测试发生在车辆有骑行者和国家之前（订单的销售区域为自由文本，不是国家）',
  },
}
