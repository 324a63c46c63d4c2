import { EMAIL_PATTERN, IMAGE_EXTENSIONS, PHONE_PATTERN } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { loadSessionUser } from '../../platform/auth/session-user'
import { hashPassword, verifyPassword } from '../../platform/auth/passwords'
import { passwordRule } from '../../platform/auth/routes'
import { ok } from '../../platform/envelope'
import { badRequest } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { t } from '../../platform/i18n'
import { bilingual } from '../../platform/i18n/zod-messages'
import { caller, SIGNED_IN } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { readOneImage } from '../../platform/uploads'
import { done, envelope } from '../../platform/responses'
import { sessionUserSchema } from '../../platform/auth/schemas'

/** The personal centre: one's own profile, password and avatar. */
export function registerProfile(app: FastifyInstance, services: Services) {
  const { db } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = ['Profile']
  const module = 'Profile'

  api.get('/system/user/profile', { config: { permission: SIGNED_IN }, schema: { tags, summary: 'My profile', response: { 200: envelope(z.object({ user: sessionUserSchema, roleGroup: z.string() })) } } }, async (req) => {
    const auth = caller(req)
    const roles = await db
      .selectFrom('sysUserRole as ur')
      .innerJoin('sysRole as r', 'r.roleId', 'ur.roleId')
      .select('r.roleName')
      .where('ur.userId', '=', auth.userId)
      .execute()
    return { user: await loadSessionUser(db, auth.userId), roleGroup: roles.map((r) => r.roleName).join(', ') }
  })

  // What a user may change about themselves, each optional: a field left out stays as it is. A
  // field sent is checked, except that a phone or email sent blank while none is stored changes
  // nothing and is accepted, so an account made without them (self-registration) can still save
  // its other details; clearing a stored one is refused (SPEC §5: email and phone are required).
  const blankOr = (rule: z.ZodString) => z.union([z.literal(''), rule]).optional()
  api.put(
    '/system/user/profile',
    {
      config: { permission: SIGNED_IN, audit: { module } },
      schema: {
        tags,
        summary: 'Change my profile (nickname, email, phone, gender; fields left out stay as they are)',
        body: z.object({
          nickName: z.string().trim().min(1, bilingual({ en_US: 'Nickname is required', zh_CN: '用户昵称不能为空' })).max(64).optional(),
          email: blankOr(z.string().trim().regex(EMAIL_PATTERN, bilingual({ en_US: 'Please enter a valid email address', zh_CN: '请输入正确的邮箱地址' })).max(128)),
          phone: blankOr(z.string().trim().regex(PHONE_PATTERN, bilingual({ en_US: 'Please enter a valid phone number', zh_CN: '请输入正确的手机号码' }))),
          sex: z.enum(['0', '1', '2']).optional(),
        }),
        response: { 200: envelope(sessionUserSchema) },
      },
    },
    async (req) => {
      const auth = caller(req)
      const { nickName, email, phone, sex } = req.body
      const stored = await db.selectFrom('sysUser').select(['email', 'phonenumber']).where('userId', '=', auth.userId).executeTakeFirstOrThrow()
      const cleared = [
        ...(email === '' && stored.email !== '' ? [{ field: 'email', key: 'profile.emailRequired' as const }] : []),
        ...(phone === '' && stored.phonenumber !== '' ? [{ field: 'phone', key: 'profile.phoneRequired' as const }] : []),
      ]
      if (cleared.length) {
        const lang = languageOf(req)
        throw badRequest(cleared[0]!.key, {}, { errors: cleared.map((c) => ({ field: c.field, message: t(lang, c.key) })) })
      }
      const set = {
        ...(nickName !== undefined ? { nickName } : {}),
        ...(email ? { email } : {}),
        ...(phone ? { phonenumber: phone } : {}),
        ...(sex !== undefined ? { sex } : {}),
      }
      if (Object.keys(set).length) {
        await db
          .updateTable('sysUser')
          .set({ ...set, updateBy: auth.userName, updateTime: new Date().toISOString() })
          .where('userId', '=', auth.userId)
          .execute()
      }
      return ok(await loadSessionUser(db, auth.userId))
    },
  )

  api.put(
    '/system/user/profile/updatePwd',
    {
      config: { permission: SIGNED_IN, audit: { module } },
      schema: { tags, summary: 'Change my password', body: z.object({ oldPassword: z.string().min(1).max(128), newPassword: passwordRule }), response: { 200: done } },
    },
    async (req) => {
      const auth = caller(req)
      const user = await db.selectFrom('sysUser').select('password').where('userId', '=', auth.userId).executeTakeFirstOrThrow()
      if (!(await verifyPassword(user.password, req.body.oldPassword))) throw badRequest('profile.oldPasswordWrong')
      if (req.body.oldPassword === req.body.newPassword) throw badRequest('profile.samePassword')
      await db
        .updateTable('sysUser')
        .set({ password: await hashPassword(req.body.newPassword), updateBy: auth.userName, updateTime: new Date().toISOString() })
        .where('userId', '=', auth.userId)
        .execute()
      // Whoever knew the old password is signed out everywhere else.
      await services.sessions.displaceOthers(auth.userId, req.token!, 'revoked')
      return ok(null, 'profile.passwordChanged')
    },
  )

  api.post('/system/user/profile/avatar', { config: { permission: SIGNED_IN, audit: { module } }, schema: { tags, summary: `Upload my avatar (${IMAGE_EXTENSIONS.join(', ')})`, consumes: ['multipart/form-data'], response: { 200: envelope(z.object({ imgUrl: z.string() })) } } }, async (req) => {
    const auth = caller(req)
    const image = await readOneImage(req, services.config.uploadMaxBytes)
    const stored = await services.storage.save('avatar', image.extension, image.bytes)
    const previous = await db.selectFrom('sysUser').select('avatar').where('userId', '=', auth.userId).executeTakeFirstOrThrow()
    await db.updateTable('sysUser').set({ avatar: stored, updateBy: auth.userName, updateTime: new Date().toISOString() }).where('userId', '=', auth.userId).execute()
    if (previous.avatar) await services.storage.remove(previous.avatar)
    return ok({ imgUrl: stored })
  })
}
