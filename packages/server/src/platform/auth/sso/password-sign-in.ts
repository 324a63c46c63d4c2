import type { AppConfig } from '../../../config'
import { LoginStatus, writeLoginLog } from '../../audit/login-log'
import type { ClientInfo } from '../../client-info'
import { forbidden } from '../../errors'
import { t } from '../../i18n'
import type { Services } from '../../services'

/** OIDC_PASSWORD_SIGN_IN=off: staff sign in through the identity provider, only break-glass accounts with a password. */
export const passwordSignInOff = (config: AppConfig): boolean => !!config.oidc && !config.oidc.passwordSignIn

/** Whether this user name may sign in with a password (user names are compared as sign-in compares them: exactly). */
export const passwordAllowedFor = (config: AppConfig, userName: string): boolean => !passwordSignInOff(config) || config.oidc!.breakGlassUsers.includes(userName.trim())

/**
 * Refuses a password sign-in that OIDC_PASSWORD_SIGN_IN=off does not allow, before the password is
 * looked at (a right one would not change the answer), and writes the refusal to the login log.
 */
export async function assertPasswordSignInAllowed(services: Services, userName: string, client: ClientInfo): Promise<void> {
  if (passwordAllowedFor(services.config, userName)) return
  await writeLoginLog(services.db, { userName: userName.trim(), status: LoginStatus.failure, msg: t('en_US', 'auth.passwordSignInOffLog'), client })
  throw forbidden('auth.passwordSignInOff')
}
