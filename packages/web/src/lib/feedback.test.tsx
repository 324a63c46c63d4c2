import { describe, expect, it } from 'vitest'
import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { FeedbackHost, useFeedback } from './feedback'

function Asker({ onAnswer }: { onAnswer: (confirmed: boolean) => void }) {
  const { message, modal } = useFeedback()
  return (
    <>
      <button onClick={() => void message.success('Saved')}>say</button>
      <button onClick={() => void modal.confirm({ title: 'Delete it?', okText: 'Yes' }).then(onAnswer, () => undefined)}>ask</button>
    </>
  )
}

describe('messages and dialogs (lib/feedback.tsx)', () => {
  it('shows what is said before antd is loaded, once it is, and answers a confirmation', async () => {
    const answers: boolean[] = []
    render(
      <>
        <Asker onAnswer={(confirmed) => answers.push(confirmed)} />
        <FeedbackHost />
      </>,
    )
    fireEvent.click(screen.getByText('say'))
    expect(await screen.findByText('Saved')).toBeTruthy()
    fireEvent.click(screen.getByText('ask'))
    expect((await screen.findByRole('dialog')).textContent).toContain('Delete it?')
    fireEvent.click(screen.getByRole('button', { name: 'Yes' }))
    await waitFor(() => expect(answers).toEqual([true]))
  })

  it('keeps what is said while no host is mounted and shows it when one is', async () => {
    useFeedback().message.info('Waiting for the host')
    expect(screen.queryByText('Waiting for the host')).toBeNull()
    render(<FeedbackHost />)
    expect(await screen.findByText('Waiting for the host')).toBeTruthy()
  })
})
