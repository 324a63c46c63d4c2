import type { AccountFeatures, CaptchaResult, RouteMeta, RouteNode, SecondFactorState, SecurityOverview, SessionUser, SignInAnswer, UserInfo } from '@velo/shared'
import { z } from 'zod'

// What the sign-in and session routes answer, tied to the wire types in shared/api.ts: the schemas
// are what leaves the server (responses.ts), the interfaces what the web reads.

export const captchaSchema = z.object({
  captchaEnabled: z.boolean(),
  uuid: z.string().optional(),
  img: z.string().optional(),
}) satisfies z.ZodType<CaptchaResult>

export const accountFeaturesSchema = z.object({
  captchaEnabled: z.boolean(),
  registerEnabled: z.boolean(),
  forgetPasswordEnabled: z.boolean(),
  sourceUrl: z.string().optional(),
  apiDocsUrl: z.string().optional(),
  sso: z.object({ name: z.string().optional(), passwordSignIn: z.boolean() }).optional(),
}) satisfies z.ZodType<AccountFeatures>

/** The signed-in user as GET /getUserInfo and the profile routes answer it (no password, no lock state). */
export const sessionUserSchema = z.object({
  userId: z.number(),
  username: z.string(),
  nickName: z.string(),
  avatar: z.string(),
  email: z.string(),
  phone: z.string(),
  sex: z.string(),
  deptId: z.number().nullable(),
  deptName: z.string().nullable(),
  createTime: z.string(),
  loginIp: z.string().nullable(),
  loginDate: z.string().nullable(),
}) satisfies z.ZodType<SessionUser>

export const secondFactorStateSchema = z.object({
  required: z.boolean(),
  enrolled: z.boolean(),
  due: z.string().nullable(),
}) satisfies z.ZodType<SecondFactorState>

export const userInfoSchema = z.object({
  user: sessionUserSchema,
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
  secondFactor: secondFactorStateSchema,
}) satisfies z.ZodType<UserInfo>

const proofMethodSchema = z.enum(['passkey', 'totp', 'recovery', 'password'])

const routeMetaSchema = z.object({
  title: z.string(),
  icon: z.string().nullable(),
  noClose: z.boolean(),
  noCache: z.boolean(),
  activeMenu: z.string().nullable(),
  breadcrumb: z.boolean(),
  link: z.string().nullable(),
}) satisfies z.ZodType<RouteMeta>

/** One node of GET /getRouters, with its children. */
export const routeNodeSchema: z.ZodType<RouteNode> = z.object({
  name: z.string(),
  path: z.string(),
  hidden: z.boolean(),
  redirect: z.string().optional(),
  component: z.string(),
  alwaysShow: z.boolean().optional(),
  meta: routeMetaSchema,
  get children() {
    return z.array(routeNodeSchema).optional()
  },
}).meta({ id: 'RouteNode' })

/** What POST /login and its second steps answer: a session (with the user and routes when asked), or the step before it. */
export const signInAnswerSchema = z.object({
  token: z.string().optional(),
  userInfo: userInfoSchema.optional(),
  routes: z.array(routeNodeSchema).optional(),
  secondFactor: z.object({ ticket: z.string(), methods: z.array(proofMethodSchema) }).optional(),
  enrol: z.object({ ticket: z.string() }).optional(),
  recoveryCodes: z.array(z.string()).optional(),
}) satisfies z.ZodType<SignInAnswer>

/** An enrolment's seed: the otpauth:// address an app scans (as a QR code, SVG), and the seed to type instead. */
export const totpEnrolmentSchema = z.object({ secret: z.string(), uri: z.string(), qrSvg: z.string() })

export const securityOverviewSchema = z.object({
  factors: z.array(z.object({ factorId: z.number(), kind: z.enum(['totp', 'passkey']), name: z.string(), createTime: z.string(), lastUsedTime: z.string().nullable() })),
  recoveryCodesLeft: z.number(),
  secondFactor: secondFactorStateSchema,
  sessions: z.array(z.object({ sessionId: z.string(), current: z.boolean(), ipaddr: z.string(), browser: z.string(), os: z.string(), loginTime: z.string(), lastSeen: z.string() })),
}) satisfies z.ZodType<SecurityOverview>

export const stepUpRequiredSchema = z.object({ methods: z.array(proofMethodSchema) })
