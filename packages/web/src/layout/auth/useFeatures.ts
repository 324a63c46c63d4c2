import { useQuery } from '@tanstack/react-query'
import { getFeatures } from '../../api/auth'

/** Public account switches (register, forget password, captcha) from the server. */
export const useFeatures = () => useQuery({ queryKey: ['common', 'features'], queryFn: getFeatures, staleTime: 60_000 })
