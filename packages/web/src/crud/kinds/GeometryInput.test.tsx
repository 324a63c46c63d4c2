import { describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { defineEntity } from '@velo/shared'
import { renderWithProviders } from '../../test/render'
import { GeometryInput } from './GeometryInput'

// The geometry input where the browser has no WebGL (as jsdom): no map, but GeoJSON is still
// imported from a file or pasted, and a shape of one feature is taken as its geometry.

const entity = defineEntity({
  key: 'fenceCase',
  table: 'fenceCase',
  path: '/test/fence',
  permission: 'test:fence',
  label: { en_US: 'Fences', zh_CN: '围栏' },
  idField: 'id',
  defaultSort: { field: 'id', order: 'asc' },
  scope: { none: { en_US: 'test', zh_CN: '测试' } },
  fields: [
    { name: 'id', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'area', kind: 'geometry', label: { en_US: 'Area', zh_CN: '区域' } },
  ],
})
const field = entity.fieldMap.get('area')!
const SQUARE = { type: 'Polygon', coordinates: [[[4, 52], [5, 52], [5, 53], [4, 53], [4, 52]]] }

const upload = (value: unknown) => {
  const input = screen.getByTestId('geometry-import-file') as HTMLInputElement
  const file = new File([JSON.stringify(value)], 'shape.geojson', { type: 'application/geo+json' })
  fireEvent.change(input, { target: { files: [file] } })
}

describe('GeometryInput without a map', () => {
  it('imports a feature collection of one polygon as the polygon', async () => {
    const onChange = vi.fn()
    renderWithProviders(<GeometryInput entity={entity} field={field} onChange={onChange} />)
    expect(await screen.findByText('The map could not start here; paste or import GeoJSON instead')).toBeTruthy()
    upload({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: SQUARE }] })
    await waitFor(() => expect(onChange).toHaveBeenCalledWith(JSON.stringify(SQUARE)))
  })

  it('refuses a MultiPolygon with the reason, and keeps the value', async () => {
    const onChange = vi.fn()
    renderWithProviders(<GeometryInput entity={entity} field={field} onChange={onChange} />)
    upload({ type: 'MultiPolygon', coordinates: [SQUARE.coordinates] })
    expect((await screen.findByTestId('geometry-import-problem')).textContent).toContain('Area is a MultiPolygon')
    expect(onChange).not.toHaveBeenCalled()
  })

  it('says which rule a pasted text breaks', async () => {
    const open = { type: 'Polygon', coordinates: [[[4, 52], [5, 52], [5, 53], [4, 53]]] }
    renderWithProviders(<GeometryInput entity={entity} field={field} value={JSON.stringify(open)} />)
    expect((await screen.findByTestId('geometry-problem')).textContent).toContain('Area is not closed')
  })

  it('says what the value is', async () => {
    renderWithProviders(<GeometryInput entity={entity} field={field} value={JSON.stringify({ type: 'Point', coordinates: [4.9, 52.37], radius: 1500 })} />)
    expect((await screen.findByTestId('geometry-summary')).textContent).toMatch(/^Circle, radius 1,?500 m$/)
  })
})
