import type { TextKey } from './texts.en_US'

const texts: Record<TextKey, string> = {
  'stepUp.title': '请确认是您本人',
  'stepUp.codeHint': '此操作需要再次验证第二因素：请输入身份验证器应用中的 6 位验证码，或一个恢复码。',
  'stepUp.passwordHint': '此操作需要再次输入您的密码。',
  'stepUp.code': '验证码或恢复码',
  'stepUp.password': '密码',
  'stepUp.confirm': '确认',
  'stepUp.required': '请输入后继续',
  'stepUp.passkeyHint': '此操作需要再次验证第二因素：请用通行密钥确认，或输入身份验证器应用中的验证码或一个恢复码。',
  'stepUp.usePasskey': '使用通行密钥',
  'stepUp.passkeyCancelled': '通行密钥提示已关闭或超时',
}

export default texts
