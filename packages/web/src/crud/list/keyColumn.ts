import type { ResolvedEntity } from '@velo/shared'

/**
 * The column that names a row on its card: the definition's label field when the list shows it,
 * else the first column that is not the id (a log's time, a message's title), else the first.
 * Apart from the cards themselves, which load only on a phone: a tree's name column on a phone
 * is chosen the same way without them.
 */
export function keyColumnOf<C extends { key: string }>(entity: Pick<ResolvedEntity, 'labelField' | 'idField'>, columns: readonly C[]): C | undefined {
  return columns.find((c) => c.key === entity.labelField) ?? columns.find((c) => c.key !== entity.idField) ?? columns[0]
}
