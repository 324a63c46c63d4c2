export * from './types'
export * from './definitions'
