import { afterEach, describe, expect, it, vi } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import type { OtaCampaignOverview } from '@velo/shared'
import { renderWithProviders } from '../../../test/render'
import { CampaignOverview } from './CampaignOverview'

// Commit or roll back (issue 35 §3) in the live view: a device on trial is still at work on it, a
// rolled-back one is a failure with its code.

const drawn = vi.hoisted(() => ({ setOption: vi.fn(), resize: vi.fn(), dispose: vi.fn() }))
vi.mock('echarts/core', () => ({ use: vi.fn(), init: vi.fn(() => drawn) }))
vi.mock('echarts/charts', () => ({ BarChart: {}, LineChart: {} }))
vi.mock('echarts/components', () => ({ GridComponent: {}, TooltipComponent: {} }))
vi.mock('echarts/renderers', () => ({ CanvasRenderer: {} }))

const onTrial: OtaCampaignOverview = {
  campaignId: 9,
  status: 'running',
  pauseReason: null,
  currentWave: 0,
  totalDevices: 6,
  counts: { succeeded: 1, trial: 2, rolledBack: 1, queued: 2 },
  waves: [{ wave: 0, total: 6, succeeded: 1, failed: 1, active: 2, queued: 2, status: 'running' }],
  timeline: [
    { at: '2026-11-28T10:00:00.000Z', counts: { queued: 6 } },
    { at: '2026-11-28T10:01:00.000Z', counts: { queued: 2, succeeded: 1, trial: 2, rolledBack: 1 } },
  ],
  failed: [{ upgradeId: 21, deviceId: 201, sn: 'VL0000201', state: 'rolledBack', code: 'E_SELF_TEST', message: 'Brake sensor did not answer', attempt: 1, at: '2026-11-28T10:00:40.000Z' }],
}

describe('campaign live view: trial and rollback', () => {
  afterEach(() => {
    drawn.setOption.mockReset()
  })

  it('counts devices on trial as at work and rolled-back ones as failed, in their colours', async () => {
    renderWithProviders(<CampaignOverview part="iot" overview={onTrial} />)
    const trial = screen.getByTestId('ota-count-trial')
    expect(trial.textContent).toBe('On trial (self-test) 2')
    expect(trial.className).toContain('ant-tag-processing')
    const rolledBack = screen.getByTestId('ota-count-rolledBack')
    expect(rolledBack.textContent).toBe('Rolled back 1')
    expect(rolledBack.className).toContain('ant-tag-error')

    await waitFor(() => expect(drawn.setOption).toHaveBeenCalled())
    const option = drawn.setOption.mock.calls.at(-1)![0] as { series: { name: string; data: number[] }[] }
    const band = (name: string) => option.series.find((s) => s.name === name)!
    expect(band('In progress').data).toEqual([0, 2])
    expect(band('Failed, rolled back or timed out').data).toEqual([0, 1])
    expect(band('Succeeded').data).toEqual([0, 1])
  })

  it('lists a rolled-back device among the failed, with its code and the device’s reason', () => {
    renderWithProviders(<CampaignOverview part="iot" overview={onTrial} />)
    const row = within(screen.getByTestId('ota-failed')).getByText('VL0000201').closest('tr')!
    expect(within(row).getByText('Rolled back')).toBeTruthy()
    expect(within(row).getByText('E_SELF_TEST').closest('code')).toBeTruthy()
    expect(within(row).getByText('Brake sensor did not answer')).toBeTruthy()
  })
})
