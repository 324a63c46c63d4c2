// The personal center's texts in English, loaded with the pages under this folder (routes/pageTexts.ts) rather than with the console. texts.zh_CN.ts has the same keys (the type checks it).

const texts = {
  'profile.aboutMe': 'About me',
  'profile.basicInfo': 'Basic information',
  'profile.changePassword': 'Change password',
  'profile.changeAvatar': 'Change avatar',
  'profile.avatarChanged': 'Avatar updated',
  'profile.imageOnly': 'Please choose a JPG, JPEG or PNG image',
  'profile.username': 'Username',
  'profile.nickName': 'Nickname',
  'profile.phone': 'Phone',
  'profile.email': 'Email',
  'profile.dept': 'Department',
  'profile.roles': 'Roles',
  'profile.createTime': 'Created',
  'profile.sex': 'Gender',
  'profile.male': 'Male',
  'profile.female': 'Female',
  'profile.unknown': 'Unknown',
  'profile.oldPassword': 'Old password',
  'profile.passwordChanged': 'Password changed',
  'profile.passwordFailed': 'Change password failed',
}

export type TextKey = keyof typeof texts
export default texts
