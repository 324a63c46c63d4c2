import { useCallback, useEffect, useState } from 'react'
import { authApi, errorText } from './authApi'
import { toast } from './toast'

export interface CaptchaState {
  enabled: boolean
  uuid: string
  img: string
  refresh: () => void
}

/** The captcha of the public forms; refreshed on click and after every failed attempt. */
export function useCaptcha(): CaptchaState {
  const [state, setState] = useState({ enabled: false, uuid: '', img: '' })
  const refresh = useCallback(() => {
    authApi
      .captcha()
      .then((c) => setState({ enabled: c.captchaEnabled, uuid: c.uuid ?? '', img: c.img ?? '' }))
      .catch((error: unknown) => toast('error', errorText(error)))
  }, [])
  useEffect(refresh, [refresh])
  return { ...state, refresh }
}
