import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { Button } from 'antd'
import { ThemeProvider } from './ThemeProvider'

describe('ThemeProvider', () => {
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
})
