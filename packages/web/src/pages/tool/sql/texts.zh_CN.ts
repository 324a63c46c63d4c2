import type { TextKey } from './texts.en_US'

// Tool system › SQL's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'tool.sql.editor': 'SQL 语句',
  'tool.sql.shortcut': '{{keys}} 执行语句',
  'tool.sql.run': '执行',
  'tool.sql.export': '导出 .xlsx',
  'tool.sql.clear': '清空',
  'tool.sql.exported': '导出成功',
  'tool.sql.noticeRead': '语句以只读方式执行，超时即停止，最多返回行数上限内的结果。',
  'tool.sql.noticeNoWrite': '写入数据需要写入权限并再次确认。',
  'tool.sql.noticeMayWrite': '你拥有写入权限：写入数据的语句会先请你确认，然后在事务中执行。',
  'tool.sql.noticeNoExecute': '执行语句需要执行权限；你可以查看自己的历史记录。',
  'tool.sql.empty': '执行语句后在此查看结果',
  'tool.sql.noRows': '语句没有返回任何行',
  'tool.sql.rows_one': '{{count}} 行，耗时 {{ms}} 毫秒',
  'tool.sql.rows_other': '{{count}} 行，耗时 {{ms}} 毫秒',
  'tool.sql.affected_one': '影响 {{count}} 行，耗时 {{ms}} 毫秒',
  'tool.sql.affected_other': '影响 {{count}} 行，耗时 {{ms}} 毫秒',
  'tool.sql.returned_one': '返回 {{count}} 行',
  'tool.sql.returned_other': '返回 {{count}} 行',
  'tool.sql.truncatedRows': '已达到 {{cap}} 行的上限，其余行未返回',
  'tool.sql.truncatedSize': '已达到结果大小上限，其余行未返回',
  'tool.sql.total': '第 {{from}}–{{to}} 条，共 {{total}} 条',
  'tool.sql.confirmTitle': '执行写入数据的语句？',
  'tool.sql.confirmText': '该语句会修改数据，请在执行前核对：',
  'tool.sql.confirmRun': '执行写入',
  'tool.sql.history': '历史记录',
  'tool.sql.historyEmpty': '暂无语句',
  'tool.sql.historyPick': '将该语句放入编辑器',
  'tool.sql.outcome.ok': '成功',
  'tool.sql.outcome.error': '出错',
  'tool.sql.outcome.refused': '已拒绝',
  'tool.sql.outcome.timeout': '超时',
  'tool.sql.mode.write': '写入',
  'tool.sql.historyRows_one': '{{count}} 行',
  'tool.sql.historyRows_other': '{{count}} 行',
}

export default texts
