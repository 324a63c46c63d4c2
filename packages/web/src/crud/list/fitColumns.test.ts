import { describe, expect, it } from 'vitest'
import { stretchToFit } from './fitColumns'
import { keyColumnOf } from './keyColumn'

const cols = (...widths: [string | null, number][]) => widths.map(([key, width]) => ({ key, width }))

describe('stretchToFit', () => {
  it('leaves a table that fits as it is', () => {
    expect(stretchToFit(cols([null, 40], ['name', 200], ['status', 100]), 340)).toBeNull()
    expect(stretchToFit(cols([null, 40], ['name', 200], ['status', 100]), 400)).toBeNull()
  })

  it('widens the last column that fits so the next starts at the Actions column', () => {
    // 40 + 200 + 100 = 340 fit in 380; the next (120) would be cut: status takes the 40 left.
    expect(stretchToFit(cols([null, 40], ['name', 200], ['status', 100], ['signatures', 120]), 380)).toEqual({ key: 'status', extra: 40 })
    // The Agreements list at 1440 px in English, as measured: Status would be cut; Is update takes the room.
    const agreements = cols([null, 40], ['protocolId', 54], ['name', 240], ['type', 198], ['language', 146], ['versionCode', 127], ['isUpdate', 85], ['status', 105], ['signCount', 96])
    expect(stretchToFit(agreements, 953)).toEqual({ key: 'isUpdate', extra: 63 })
  })

  it('widens nothing when no data column fits or the columns end on the edge', () => {
    expect(stretchToFit(cols([null, 40], ['name', 500]), 300)).toBeNull()
    expect(stretchToFit(cols(['name', 500], ['status', 100]), 300)).toBeNull()
    expect(stretchToFit(cols(['name', 200], ['status', 100], ['more', 50]), 300)).toBeNull()
  })
})

describe('keyColumnOf', () => {
  const columns = [{ key: 'memberId' }, { key: 'email' }, { key: 'firstName' }]
  it('names a card by the label field when the list shows it', () => {
    expect(keyColumnOf({ labelField: 'email', idField: 'memberId' }, columns)?.key).toBe('email')
  })
  it('else by the first column that is not the id, else the first', () => {
    expect(keyColumnOf({ labelField: 'nickName', idField: 'memberId' }, columns)?.key).toBe('email')
    expect(keyColumnOf({ labelField: 'nickName', idField: 'memberId' }, [{ key: 'memberId' }])?.key).toBe('memberId')
    expect(keyColumnOf({ labelField: 'nickName', idField: 'memberId' }, [])).toBeUndefined()
  })
})
