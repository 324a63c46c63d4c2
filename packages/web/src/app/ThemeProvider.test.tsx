import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, render, screen } from '@testing-library/react'
import { Button, theme } from 'antd'
import { ThemeProvider } from './ThemeProvider'

/** A system preference for reduced motion that the test turns on and off, as the OS setting would. */
function reducedMotionSetting(initially: boolean) {
  const listeners = new Set<() => void>()
  const list = {
    matches: initially,
    media: '(prefers-reduced-motion: reduce)',
    addEventListener: (_: string, l: () => void) => listeners.add(l),
    removeEventListener: (_: string, l: () => void) => listeners.delete(l),
  }
  const original = window.matchMedia
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => (query === list.media ? (list as unknown as MediaQueryList) : original(query)))
  return {
    set(value: boolean) {
      list.matches = value
      for (const l of listeners) l()
    },
  }
}

function Motion() {
  return <output data-testid="motion">{String(theme.useToken().token.motion)}</output>
}

describe('ThemeProvider', () => {
  afterEach(() => vi.restoreAllMocks())

  it('leaves two-character Chinese buttons as written ("取消", not "取 消"), like every other button', () => {
    render(
      <ThemeProvider>
        <Button>取消</Button>
        <Button>登录</Button>
        <Button>重置密码</Button>
      </ThemeProvider>,
    )
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['取消', '登录', '重置密码'])
  })

  it('animates popups unless the system asks for reduced motion, and follows a change of that setting live', () => {
    const setting = reducedMotionSetting(false)
    render(
      <ThemeProvider>
        <Motion />
      </ThemeProvider>,
    )
    expect(screen.getByTestId('motion').textContent).toBe('true')
    act(() => setting.set(true))
    expect(screen.getByTestId('motion').textContent).toBe('false')
    act(() => setting.set(false))
    expect(screen.getByTestId('motion').textContent).toBe('true')
  })
})
