/** OpenAPI group of every route of the app API. */
export const APP_TAGS = ['App API']

/** The OpenAPI security of member routes: the member token of POST /app/v1/auth/login. */
export const MEMBER_SECURITY = [{ memberToken: [] }]
