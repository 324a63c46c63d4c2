// The second proof's dialog (api/stepUp): loaded with it, the first time a dangerous action asks.

const texts = {
  'stepUp.title': 'Confirm it is you',
  'stepUp.codeHint': 'This action asks for your second factor again: enter the 6-digit code of your authenticator app, or a recovery code.',
  'stepUp.passwordHint': 'This action asks for your password again.',
  'stepUp.code': 'Code or recovery code',
  'stepUp.password': 'Password',
  'stepUp.confirm': 'Confirm',
  'stepUp.required': 'Please enter it to go on',
  'stepUp.passkeyHint': 'This action asks for your second factor again: confirm with your passkey, or enter a code of your authenticator app or a recovery code.',
  'stepUp.usePasskey': 'Use your passkey',
  'stepUp.passkeyCancelled': 'The passkey prompt was closed or timed out',
}

export type TextKey = keyof typeof texts
export default texts
