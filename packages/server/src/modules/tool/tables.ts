/** OpenAPI group of every route of the tool API. */
export const TOOL_TAGS = ['Tool API']

/** The OpenAPI security of operator routes: the tool token of POST /tool-api/v1/auth/login. */
export const TOOL_SECURITY = [{ toolToken: [] }]

/** The operation log's module title of tool API calls. */
export const TOOL_AUDIT_MODULE = 'Tool API'
