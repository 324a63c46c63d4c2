/** Dictionaries the system area uses, in both languages: [type, name, [value, en, zh, listClass]]. */
export const SEED_DICTIONARIES: [string, string, [string, string, string, string][]][] = [
  ['sys_normal_disable', 'Status', [['0', 'Normal', '正常', 'primary'], ['1', 'Disabled', '停用', 'danger']]],
  ['sys_user_sex', 'Gender', [['0', 'Male', '男', ''], ['1', 'Female', '女', ''], ['2', 'Unknown', '未知', '']]],
  ['sys_yes_no', 'Yes / no', [['Y', 'Yes', '是', 'primary'], ['N', 'No', '否', 'danger']]],
  ['sys_show_hide', 'Visibility', [['0', 'Show', '显示', 'primary'], ['1', 'Hide', '隐藏', 'danger']]],
  ['sys_common_status', 'Result', [['0', 'Success', '成功', 'primary'], ['1', 'Failure', '失败', 'danger']]],
  ['sys_menu_type', 'Menu type', [['M', 'Directory', '目录', ''], ['C', 'Menu', '菜单', ''], ['F', 'Button', '按钮', '']]],
  [
    'sys_data_scope',
    'Data scope',
    [
      ['1', 'All data', '全部数据权限', ''],
      ['2', 'Custom departments', '自定数据权限', ''],
      ['3', 'Own department', '本部门数据权限', ''],
      ['4', 'Department and below', '本部门及以下数据权限', ''],
      ['5', 'Self only', '仅本人数据权限', ''],
    ],
  ],
  [
    'sys_oper_type',
    'Operation type',
    [
      ['0', 'Other', '其他', 'info'],
      ['1', 'Add', '新增', 'info'],
      ['2', 'Modify', '修改', 'info'],
      ['3', 'Delete', '删除', 'danger'],
      ['4', 'Grant', '授权', 'primary'],
      ['5', 'Export', '导出', 'warning'],
      ['6', 'Import', '导入', 'warning'],
      ['7', 'Force logout', '强退', 'danger'],
      ['9', 'Clean', '清空数据', 'danger'],
    ],
  ],
  [
    'sys_i18n_type',
    'I18n text type',
    [
      ['app', 'App', 'App', 'primary'],
      ['web', 'Web console', '管理后台', 'success'],
      ['server', 'Server message', '服务端消息', 'info'],
      ['iot', 'IoT device', '物联网设备', 'warning'],
      ['email', 'Email', '邮件', ''],
      ['push', 'Push notification', '推送通知', ''],
    ],
  ],
  [
    'sys_language',
    'Language',
    [
      ['en_US', 'English', '英文', ''],
      ['zh_CN', 'Chinese', '中文', ''],
      ['de_DE', 'German', '德文', ''],
      ['nl_NL', 'Dutch', '荷兰文', ''],
      ['fr_FR', 'French', '法文', ''],
    ],
  ],
  // Bike models and bikes (seed version 6 adds it to databases seeded before).
  [
    'bike_category',
    'Bike category',
    [
      ['city', 'City', '城市', 'primary'],
      ['trekking', 'Trekking', '旅行', 'success'],
      ['cargo', 'Cargo', '载货', 'warning'],
      ['folding', 'Folding', '折叠', 'info'],
      ['mountain', 'Mountain', '山地', 'danger'],
    ],
  ],
  // ---- issue 17: config dictionaries ----
  // ---- issue 17: sim dictionaries ----
  // ---- issue 17: warnings dictionaries ----
  // ---- issue 17: collections dictionaries ----
  // ---- issue 17: tool dictionaries ----
]

/** Built-in configuration keys: [key, name, value, remark]. */
export const SEED_CONFIGS: [string, string, string, string][] = [
  ['sys.account.captchaEnabled', 'Captcha on sign-in', 'true', 'true or false; env CAPTCHA_ENABLED overrides it'],
  ['sys.account.captchaType', 'Captcha type', 'math', 'math or char'],
  ['sys.account.registerUser', 'Self-registration', 'false', 'true lets visitors register an account'],
  ['sys.account.forgetPassword', 'Password reset by mail', 'true', 'true offers "forgot password" on the sign-in page'],
  ['sys.account.maxRetryCount', 'Wrong passwords before lock', '5', 'attempts'],
  ['sys.account.lockTime', 'Lock duration', '10', 'minutes'],
  ['sys.account.singleSignOn', 'Single sign-in', 'false', 'true ends older sessions of a user when they sign in again'],
  ['iot.heartbeat.seconds', 'Device heartbeat interval', '60', 'seconds; a device silent for 3 intervals is marked offline'],
  ['iot.command.timeoutSeconds', 'Command timeout', '30', 'seconds from sending to the final reply'],
  ['iot.command.expireMinutes', 'Queued command lifetime', '1440', 'minutes an offline device may take to come back for a command'],
  ['iot.flow.warningPercent', 'SIM data warning', '10', 'flow state turns to warning below this % of the package left'],
  ['iot.message.retentionDays', 'Device message retention', '7', 'days the message log keeps'],
  ['service.repairOrder.reviewDays', 'Service order review time', '2', 'working days a pending service order may wait for review before it is overdue'],
  ['service.repairOrder.repairDays', 'Service order repair time', '10', 'working days a service order may stay in processing before it is overdue'],
  // ---- issue 17: config configuration keys ----
  // ---- issue 17: sim configuration keys ----
  ['iot.sim.carrierSyncMinutes', 'SIM carrier sync', '60', 'minutes between asking the carrier for the state of each SIM card'],
  ['iot.sim.simulatedCarrierDelaySeconds', 'Simulated carrier delay', '5', 'seconds the simulated carrier takes to confirm a SIM card change'],
  // ---- issue 17: warnings configuration keys ----
  ['iot.warning.lowBatteryPercent', 'Low battery warning', '15', '% charge below which a low-battery warning is raised, for devices whose configuration template sets none'],
  ['iot.warning.fallAngle', 'Fall warning angle', '60', 'degrees of lean beyond which a fall is raised, for devices whose configuration template sets none'],
  ['iot.warning.offlineHours', 'Offline warning', '24', 'hours a device may stay offline before a warning is raised'],
  // ---- issue 17: collections configuration keys ----
  ['iot.telemetry.retentionDays', 'Telemetry retention', '30', 'days the telemetry history keeps'],
  // ---- issue 17: tool configuration keys ----
]
