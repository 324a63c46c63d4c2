import { useCallback, useEffect, useState } from 'react'
import { getCaptcha } from '../../api/auth'

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
    getCaptcha()
      .then((c) => setState({ enabled: c.captchaEnabled, uuid: c.uuid ?? '', img: c.img ?? '' }))
      .catch(() => undefined) // already reported by the client
  }, [])
  useEffect(refresh, [refresh])
  return { ...state, refresh }
}
