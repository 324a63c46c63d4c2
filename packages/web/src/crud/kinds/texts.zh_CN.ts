import type { TextKey } from './texts.en_US'

const texts: Record<TextKey, string> = {
  'crud.uploadImage': '上传图片',
  'crud.uploadFile': '上传文件',
  'crud.imageOnly': '请选择 JPG、JPEG 或 PNG 图片',
  'crud.fileTypes': '允许的文件类型：{{types}}',
  'crud.fileTooLarge': '{{name}} 超过 {{max}}',
  'crud.fileLimits': '{{types}}；不超过 {{max}}',
  'crud.fileProgress': '正在上传 {{name}}',
  'crud.fileCancel': '取消',
  'crud.fileReplace': '替换',
  'crud.fileRemove': '移除',
  'crud.fileSize': '大小',
  'crud.bold': '粗体',
  'crud.italic': '斜体',
  'crud.bulletList': '项目符号列表',
  'crud.numberedList': '编号列表',
  'crud.link': '链接',
  'crud.linkAddress': '链接地址（https://…）',
  'crud.videoUnplayable': '浏览器无法播放此视频，请下载后观看',
}

export default texts
