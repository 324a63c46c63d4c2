import { useSyncExternalStore } from 'react'

/**
 * A minimal observable store: plain state, a setter, and a React hook with a selector.
 * The app's global state is small (session, layout, settings, tabs), so this replaces a store
 * library; each store module keeps its own transitions as plain functions that tests can call.
 */
export interface Store<S> {
  getState(): S
  setState(update: Partial<S> | ((state: S) => Partial<S>)): void
  subscribe(listener: () => void): () => void
  use<T>(selector: (state: S) => T): T
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state = initial
  const listeners = new Set<() => void>()
  const store: Store<S> = {
    getState: () => state,
    setState(update) {
      const patch = typeof update === 'function' ? update(state) : update
      state = { ...state, ...patch }
      listeners.forEach((l) => l())
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    // Selectors must return stable values (a slice or a primitive), not new objects on every call.
    use: (selector) =>
      useSyncExternalStore(store.subscribe, () => selector(state), () => selector(state)),
  }
  return store
}
