import { createContext, useContext } from 'react'

/**
 * The values of the other fields of the form an input sits in, for an input that depends on one of
 * them (a bike's colour, within its model). The add/modify form (antd's Form) and the search form (a
 * plain form, so a list's first paint does not load antd's form kit) each provide them.
 */
export interface OtherFields {
  get(name: string): unknown
}

export const OtherFieldsContext = createContext<OtherFields>({ get: () => undefined })

export const useOtherField = (name: string): unknown => useContext(OtherFieldsContext).get(name)
