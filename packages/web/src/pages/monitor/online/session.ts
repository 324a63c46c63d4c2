// The session rows' definition is shared: the server exports sessions with the same columns.
export { onlineSession } from '@velo/shared'
