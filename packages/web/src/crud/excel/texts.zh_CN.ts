import type { TextKey } from './texts.en_US'

const texts: Record<TextKey, string> = {
  'crud.importSuccess': '导入成功',
  'crud.importTitle': '导入{{entity}}',
  'crud.importTemplate': '下载模板',
  'crud.importDrop': '将 .xls 或 .xlsx 文件拖到此处，或点击选择',
  'crud.importHint': '一个 .xls 或 .xlsx 文件；第一行为模板的列名。',
  'crud.importFileOnly': '只能导入 .xls 或 .xlsx 文件',
  'crud.importNoFile': '请选择要导入的文件',
  'crud.importRejected': '未导入任何数据：发现 {{count}} 个问题。请修改文件后重新导入。',
  'crud.importDone': '新增 {{inserted}} 条，更新 {{updated}} 条',
  'crud.importRow': '行',
  'crud.importField': '列',
  'crud.importProblem': '问题',
  'crud.importJobRunning': '文件较大，将在后台导入。可以关闭此对话框：导入会继续进行，可在顶栏的任务按钮中查看进度。',
  'crud.importJobClose': '关闭',
  'crud.importJobStop': '停止导入',
  'crud.importJobStopConfirm': '确认停止导入吗？将不会导入任何数据。',
  'crud.importJobCancelled': '导入已停止，未导入任何数据。',
}

export default texts
