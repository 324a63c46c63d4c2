import type { AbstractNode } from '@ant-design/icons-svg/es/types'
import { MESSAGE_DURATION_S } from '../../lib/config'
import { CheckCircleFilled, CloseCircleFilled } from './icons'

// A message at the top of the page, as antd's message looks, for the public pages, which load no
// antd. Plain DOM, so a message outlives the page that showed it ("Account registered" stays while
// the sign-in page replaces the register page).

const ICONS = { success: CheckCircleFilled, error: CloseCircleFilled }

export type ToastKind = keyof typeof ICONS

function draw(node: AbstractNode): Element {
  const el = document.createElementNS('http://www.w3.org/2000/svg', node.tag)
  for (const [name, value] of Object.entries(node.attrs)) el.setAttribute(name, value)
  for (const child of node.children ?? []) el.appendChild(draw(child))
  return el
}

function container(): HTMLElement {
  let box = document.getElementById('auth-toasts')
  if (!box) {
    box = document.createElement('div')
    box.id = 'auth-toasts'
    box.className = 'auth-toasts'
    document.body.appendChild(box)
  }
  return box
}

/** Shows `text` for MESSAGE_DURATION_S seconds (data-testid auth-toast-error / auth-toast-success). */
export function toast(kind: ToastKind, text: string): void {
  const item = document.createElement('div')
  item.className = `auth-toast auth-toast-${kind}`
  item.dataset.testid = `auth-toast-${kind}`
  item.setAttribute('role', kind === 'error' ? 'alert' : 'status')
  const svg = draw(ICONS[kind].icon as AbstractNode)
  svg.setAttribute('width', '1em')
  svg.setAttribute('height', '1em')
  svg.setAttribute('fill', 'currentColor')
  svg.setAttribute('aria-hidden', 'true')
  const label = document.createElement('span')
  label.textContent = text
  item.append(svg, label)
  container().appendChild(item)
  setTimeout(() => {
    item.classList.add('auth-toast-leave')
    setTimeout(() => item.remove(), 300)
  }, MESSAGE_DURATION_S * 1000)
}
