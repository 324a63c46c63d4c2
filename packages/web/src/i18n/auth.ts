// The texts of the public pages (sign in, register, reset password) and of the failures their calls
// can meet. They are the only texts the sign-in page downloads (it does not load i18next or the rest
// of the resources); the console's i18n (./index.ts) merges them into its own resources, so every
// key here is also an ordinary key of the console. authZhCN must have the same keys (the type checks it).

export const authEnUS = {
  'login.title': 'Sign in',
  'login.username': 'Username',
  'login.password': 'Password',
  'login.code': 'Verification code',
  'login.usernameRequired': 'Please enter your username',
  'login.passwordRequired': 'Please enter your password',
  'login.codeRequired': 'Please enter the verification code',
  'login.captchaAlt': 'Verification code image',
  'login.captchaRefresh': 'Click for a new code',
  'login.remember': 'Remember me',
  'login.submit': 'Sign in',
  'login.signingIn': 'Signing in...',
  'login.forgetPassword': 'Forgot password?',
  'login.register': 'Register now',
  'login.language': 'Language',
  'login.showPassword': 'Show password',

  'register.title': 'Create an account',
  'register.confirmPassword': 'Confirm password',
  'register.submit': 'Register',
  'register.success': 'Account {{username}} registered. Please sign in.',
  'register.haveAccount': 'Back to sign in',

  'forget.title': 'Reset password',
  'forget.email': 'Email of your account',
  'forget.sendCode': 'Send reset code',
  'forget.codeSent': 'A reset code has been sent',
  'forget.codeSentTo': 'Enter the code sent to {{email}} and choose a new password.',
  'forget.resetCode': 'Reset code',
  'forget.resetCodeRequired': 'Please enter the reset code',
  'forget.newPassword': 'New password',
  'forget.reset': 'Reset password',
  'forget.success': 'Password reset. Please sign in.',

  'validation.username': 'Username: 4 to 20 letters or digits',
  'validation.password': 'Password: 6 to 20 letters, digits or special characters',
  'validation.confirmRequired': 'Please confirm the password',
  'validation.mismatch': 'The two passwords do not match',
  'validation.emailRequired': 'Please enter the email',
  'validation.email': 'Please enter a valid email',

  'request.network': 'Network Error',
  'request.timeout': 'Request timed out',
  'request.http': 'Request failed with status code {{code}}',
  'request.canceled': 'Request canceled',
}

export type AuthMessageKey = keyof typeof authEnUS

// Two-character buttons are written without an inserted space ("登录", not "登 录").
export const authZhCN: Record<AuthMessageKey, string> = {
  'login.title': '登录',
  'login.username': '账号',
  'login.password': '密码',
  'login.code': '验证码',
  'login.usernameRequired': '请输入您的账号',
  'login.passwordRequired': '请输入您的密码',
  'login.codeRequired': '请输入验证码',
  'login.captchaAlt': '验证码图片',
  'login.captchaRefresh': '点击刷新验证码',
  'login.remember': '记住我',
  'login.submit': '登录',
  'login.signingIn': '登录中...',
  'login.forgetPassword': '忘记密码？',
  'login.register': '立即注册',
  'login.language': '语言',
  'login.showPassword': '显示密码',

  'register.title': '注册账号',
  'register.confirmPassword': '确认密码',
  'register.submit': '注册',
  'register.success': '恭喜你，账号 {{username}} 注册成功！请登录。',
  'register.haveAccount': '使用已有账户登录',

  'forget.title': '重置密码',
  'forget.email': '账号邮箱',
  'forget.sendCode': '发送重置码',
  'forget.codeSent': '重置码已发送',
  'forget.codeSentTo': '请输入发送到 {{email}} 的重置码，并设置新密码。',
  'forget.resetCode': '重置码',
  'forget.resetCodeRequired': '请输入重置码',
  'forget.newPassword': '新密码',
  'forget.reset': '重置密码',
  'forget.success': '密码已重置，请登录。',

  'validation.username': '账号：4 到 20 位字母或数字',
  'validation.password': '密码：6 到 20 位字母、数字或特殊字符',
  'validation.confirmRequired': '请再次输入密码',
  'validation.mismatch': '两次输入的密码不一致',
  'validation.emailRequired': '请输入邮箱',
  'validation.email': '请输入正确的邮箱地址',

  'request.network': '网络错误',
  'request.timeout': '请求超时',
  'request.http': '请求失败，状态码 {{code}}',
  'request.canceled': '请求已取消',
}
