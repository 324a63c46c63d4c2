export * from './device'
export * from './register'
