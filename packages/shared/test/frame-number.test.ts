import { describe, expect, it } from 'vitest'
import { frameCheckCharacter, frameFormat, frameNumberOf, FRAME_CHARACTERS, overrunLimit, transliterate, vinCheckDigit, yearCode } from '../src'

// The frame-number scheme of docs/frame-numbers.md, against hand-computed and published examples.

describe('the check character', () => {
  it('transliterates as ISO 3779 does: the published VIN examples check', () => {
    expect(vinCheckDigit('1M8GDM9AXKP042788')).toBe('X')
    expect(vinCheckDigit('11111111111111111')).toBe('1')
    expect(vinCheckDigit('1HGCM82633A004352')).toBe('3')
    expect(() => transliterate('I')).toThrow()
    expect(() => transliterate('O')).toThrow()
    expect(() => transliterate('Q')).toThrow()
  })

  it('weights 2…10 from the right, mod 11, X for 10 (computed by hand)', () => {
    // 5·V5 + 4·L3 + 3·A1 + 2·T3 + 10·M4 + 9·E5 + 8·T3 + 7·0 + 6·0 + 5·0 + 4·0 + 3·0 + 2·1 = 157 = 14·11 + 3
    expect(frameCheckCharacter('VLATMET000001')).toBe('3')
    // … + 3·1 + 2·3 = 164 = 14·11 + 10
    expect(frameCheckCharacter('VLATMET000013')).toBe('X')
    // … + 4·1 + 2·1 = 161 = 14·11 + 7
    expect(frameCheckCharacter('VLATMET000101')).toBe('7')
  })

  it('catches one wrong character and two neighbours swapped', () => {
    const body = 'VLATMET004711'
    const check = frameCheckCharacter(body)
    for (let i = 0; i < body.length; i++) {
      for (const c of '0123456789') {
        if (c === body[i] || transliterate(c) === transliterate(body[i]!)) continue
        expect(frameCheckCharacter(body.slice(0, i) + c + body.slice(i + 1)), `${i}:${c}`).not.toBe(check)
      }
      if (i + 1 < body.length && transliterate(body[i]!) !== transliterate(body[i + 1]!)) {
        const swapped = body.slice(0, i) + body[i + 1] + body[i] + body.slice(i + 2)
        expect(frameCheckCharacter(swapped), `swap ${i}`).not.toBe(check)
      }
    }
  })
})

describe('the template', () => {
  const t = { brandCode: 'VL', manufacturerCode: 'A', modelYear: 2026, specCode: 'MET', repairCode: '', serialDigits: 6, checkCharacter: true }

  it('writes brand, manufacturer, year, model code, supplementary code, serial and check', () => {
    expect(yearCode(2026)).toBe('T')
    expect(yearCode(2030)).toBe('Y')
    expect(yearCode(2031)).toBe('1')
    expect(yearCode(2040)).toBe('A')
    expect(frameNumberOf(t, 1)).toBe('VLATMET0000013')
    expect(frameNumberOf({ ...t, repairCode: 'R2', checkCharacter: false, serialDigits: 5 }, 1)).toBe('VLATMETR200001')
    expect(frameFormat(t, 'check')).toBe('VL · A · T · MET · ###### · check')
    expect(() => frameNumberOf(t, 1_000_000)).toThrow()
    expect(() => frameNumberOf(t, 0)).toThrow()
    expect(FRAME_CHARACTERS.test(frameNumberOf(t, 4711))).toBe(true)
  })

  it('draws the 5 % line (SPEC §5)', () => {
    expect(overrunLimit(100)).toBe(105)
    expect(overrunLimit(10)).toBe(10)
    expect(overrunLimit(1000)).toBe(1050)
  })
})
