export { registerDashboards } from './routes'
