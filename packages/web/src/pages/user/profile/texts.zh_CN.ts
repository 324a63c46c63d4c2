import type { TextKey } from './texts.en_US'

// The personal center's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'profile.aboutMe': '个人信息',
  'profile.basicInfo': '基本资料',
  'profile.changePassword': '修改密码',
  'profile.changeAvatar': '修改头像',
  'profile.avatarChanged': '头像已更新',
  'profile.imageOnly': '请选择 JPG、JPEG 或 PNG 格式的图片',
  'profile.username': '用户名称',
  'profile.nickName': '用户昵称',
  'profile.phone': '手机号码',
  'profile.email': '用户邮箱',
  'profile.dept': '所属部门',
  'profile.roles': '所属角色',
  'profile.createTime': '创建日期',
  'profile.sex': '性别',
  'profile.male': '男',
  'profile.female': '女',
  'profile.unknown': '未知',
  'profile.oldPassword': '旧密码',
  'profile.passwordChanged': '修改密码成功',
  'profile.passwordFailed': '修改密码失败',
}

export default texts
