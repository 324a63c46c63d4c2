import { fieldIssueOf, type FieldIssue, type FieldProblem, type FieldProblemRule, GEOMETRY_LIMITS, type GeometryReason, type Label, type Language } from '@velo/shared'
import { z } from 'zod'
import { t } from './index'

// Validation runs before the request's language is known, so a schema carries both texts in its
// message and the error handler picks one.
const MARK = '\u0001i18n:'

export function bilingual(label: Label): string {
  return MARK + JSON.stringify(label)
}

export interface RawIssue {
  code: string
  path: string
  message: string
  params: Record<string, unknown>
}

const zhLocale = z.locales.zhCN()

type Said = { en_US: string; zh_CN: string }
const list = (values: readonly string[]): Said => ({ en_US: values.join(', '), zh_CN: values.join('、') })

const GEOMETRY_REASONS: Record<GeometryReason, Said> = {
  json: { en_US: 'is not GeoJSON (not valid JSON)', zh_CN: '不是 GeoJSON（JSON 格式错误）' },
  type: { en_US: 'must be a GeoJSON Polygon or a circle (a Point with a radius)', zh_CN: '必须是 GeoJSON 多边形（Polygon）或圆（带 radius 的 Point）' },
  multiPolygon: { en_US: 'is a MultiPolygon: draw or import one polygon per geofence', zh_CN: '是 MultiPolygon：每个电子围栏只能有一个多边形' },
  severalFeatures: { en_US: 'holds several features: import one shape per geofence', zh_CN: '包含多个要素：每个电子围栏只能导入一个形状' },
  hole: { en_US: 'has a hole (an inner ring): holes are not supported', zh_CN: '含有内环（洞）：不支持带洞的多边形' },
  notClosed: { en_US: 'is not closed: the last point must repeat the first', zh_CN: '未闭合：最后一个点必须与第一个点相同' },
  tooFewVertices: { en_US: 'needs at least 3 corners', zh_CN: '至少需要 3 个顶点' },
  tooManyVertices: { en_US: `has more than ${GEOMETRY_LIMITS.maxVertices} corners`, zh_CN: `顶点不能超过 ${GEOMETRY_LIMITS.maxVertices} 个` },
  coordinates: { en_US: 'has coordinates that are not [longitude, latitude] on the globe', zh_CN: '坐标不是有效的 [经度, 纬度]' },
  radius: { en_US: `needs a radius from 1 m to ${GEOMETRY_LIMITS.maxRadiusM / 1000} km`, zh_CN: `半径必须在 1 米到 ${GEOMETRY_LIMITS.maxRadiusM / 1000} 公里之间` },
}

/**
 * What each problem of the shared value schemas says after the field's label, in both languages
 * (the web says the same problems in its own i18n files). A new problem does not compile until it
 * has its words here.
 */
const FIELD_PROBLEMS: { [R in FieldProblemRule]: (p: Extract<FieldProblem, { rule: R }>) => Said } = {
  required: () => ({ en_US: 'is required', zh_CN: '不能为空' }),
  type: (p) =>
    ({
      text: { en_US: 'must be text', zh_CN: '必须是文本' },
      number: { en_US: 'must be a number', zh_CN: '必须是数字' },
      boolean: { en_US: 'must be true or false', zh_CN: '必须是 true 或 false' },
      list: { en_US: 'must be a list of ids', zh_CN: '必须是编号列表' },
    })[p.expected],
  minLength: (p) => ({ en_US: `must be at least ${p.min} characters`, zh_CN: `不能少于 ${p.min} 个字符` }),
  maxLength: (p) => ({ en_US: `must be at most ${p.max} characters`, zh_CN: `不能超过 ${p.max} 个字符` }),
  min: (p) => ({ en_US: `must be at least ${p.min}`, zh_CN: `不能小于 ${p.min}` }),
  max: (p) => ({ en_US: `must be at most ${p.max}`, zh_CN: `不能大于 ${p.max}` }),
  integer: () => ({ en_US: 'must be a whole number', zh_CN: '必须是整数' }),
  decimals: (p) => ({ en_US: `has more than ${p.places} decimal places`, zh_CN: `最多 ${p.places} 位小数` }),
  pattern: () => ({ en_US: 'has a wrong format', zh_CN: '格式不正确' }),
  enum: (p) => ({ en_US: `must be one of ${list(p.values).en_US}`, zh_CN: `必须是 ${list(p.values).zh_CN} 之一` }),
  date: () => ({ en_US: 'must be a date YYYY-MM-DD', zh_CN: '必须是日期 YYYY-MM-DD' }),
  datetime: () => ({ en_US: 'must be an ISO date and time', zh_CN: '必须是 ISO 日期时间' }),
  storedFile: () => ({ en_US: 'is not a stored file name', zh_CN: '不是有效的文件名' }),
  fileType: (p) => ({ en_US: `must be a ${list(p.accept).en_US} file`, zh_CN: `必须是 ${list(p.accept).zh_CN} 文件` }),
  version: () => ({ en_US: 'must be a version 0.0.0 to 999.999.999', zh_CN: '必须是 0.0.0 到 999.999.999 的版本号' }),
  letterCode: (p) => ({ en_US: `must be 1 to ${p.max} letters`, zh_CN: `必须是 1 到 ${p.max} 个字母` }),
  email: () => ({ en_US: 'must be a valid email address', zh_CN: '格式不正确' }),
  phone: () => ({ en_US: 'must be a valid phone number', zh_CN: '格式不正确' }),
  password: () => ({ en_US: 'must be 6 to 20 letters, digits and special characters', zh_CN: '必须是 6 到 20 位字母、数字和特殊字符' }),
  choose: () => ({ en_US: 'must be chosen', zh_CN: '必须选择' }),
  timeZone: () => ({ en_US: 'must be an IANA time zone such as Europe/Amsterdam', zh_CN: '必须是 IANA 时区，如 Asia/Shanghai' }),
  checkDigit: () => ({ en_US: 'has a wrong check digit (mistyped?)', zh_CN: '校验位不正确（是否输错？）' }),
  geometry: (p) => GEOMETRY_REASONS[p.reason],
}

/** A problem of the shared value schemas in the reader's language: "Price has more than 2 decimals". */
export function fieldProblemText(issue: FieldIssue, lang: Language): string {
  // A definition's own words for its pattern say the whole sentence.
  if (issue.rule === 'pattern' && issue.message) return issue.message[lang]
  const said = (FIELD_PROBLEMS[issue.rule] as (p: FieldProblem) => Said)(issue)
  return lang === 'zh_CN' ? `${issue.label.zh_CN}${said.zh_CN}` : `${issue.label.en_US} ${said.en_US}`
}

export function localizeIssue(issue: RawIssue, lang: Language): string {
  const problem = fieldIssueOf(issue.message)
  if (problem) return fieldProblemText(problem, lang)
  if (issue.message.startsWith(MARK)) {
    const label = JSON.parse(issue.message.slice(MARK.length)) as Label
    return label[lang]
  }
  const field = issue.path || 'body'
  if (/received undefined$/.test(issue.message)) return t(lang, 'error.field.required', { field })
  if (lang === 'en_US') return `${field}: ${issue.message}`
  const zh = zhLocale.localeError({ ...issue.params, code: issue.code, path: [], input: undefined } as never)
  const text = typeof zh === 'string' ? zh : zh?.message
  return `${field}：${text ?? issue.message}`
}
