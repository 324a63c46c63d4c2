import type { FieldDef, ResolvedEntity } from '@velo/shared'
import { badRequest } from '../errors'
import { type Db, dynamicDb } from '../../db/database'

/**
 * A `file` field takes only a name its own upload route stored (sys_file, for this entity and field):
 * never a name typed in, nor one uploaded for another field, whose accept list and size limit may be
 * laxer, nor another entity's, which its permission and data scope guard. On modify, the value the
 * row already holds passes too, so rows written before these checks (or by a module) stay editable.
 */
export async function assertStoredFile(db: Db, e: ResolvedEntity, f: FieldDef & { kind: 'file' }, value: string, rowId?: number): Promise<void> {
  const uploaded = await db
    .selectFrom('sysFile')
    .select('fileId')
    .where('fileName', '=', value)
    .where('entity', '=', e.key)
    .where('field', '=', f.name)
    .executeTakeFirst()
  if (uploaded) return
  if (rowId !== undefined) {
    const kept = await dynamicDb(db).selectFrom(e.table).select(e.idField).where(e.idField, '=', rowId).where(f.name, '=', value).executeTakeFirst()
    if (kept) return
  }
  throw badRequest('file.notUploaded', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: value.slice(0, 255) }, { errors: [{ field: f.name }] })
}
