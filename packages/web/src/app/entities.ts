import { contentEntities, iotEntities, registerEntities, systemEntities } from '@velo/shared'

// Every entity definition the console serves. @velo/shared is marked side-effect free, so a module of
// definitions nobody names would be dropped from the bundle together with its registerEntities()
// call; naming the modules here keeps the registry (page lookup, references) complete. A new area's
// definitions are added to this list.
registerEntities(...Object.values(systemEntities), ...Object.values(contentEntities), ...Object.values(iotEntities))
