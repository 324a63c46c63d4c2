/** Where a staff user's name goes (the operation log, createBy), a factory tool operator is named by `tool:` and their e-mail. */
export const TOOL_OPERATOR_PREFIX = 'tool:'

/** The tool operator's name as stored: the columns hold 64 characters. */
export const toolOperatorName = (email: string) => `${TOOL_OPERATOR_PREFIX}${email}`.slice(0, 64)
