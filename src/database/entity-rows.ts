import type { EntityMetadata, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

/**
 * Reads an entity's rows from plain SQL: the select list of every stored column, and the entity made
 * from a row the way TypeORM's own reads make it (the driver's conversion of each value, column
 * transformers, embedded columns), without building the query anew on every call.
 *
 * On a hot read TypeORM's `find` spends most of its time, and allocates about 40 KB per call, on
 * generating the same SQL text and on its general result transformer (joins, relation ids,
 * inheritance). Entities with eager relations or inheritance keep using `find`; this refuses them.
 */
export class EntityRows<E extends ObjectLiteral> {
  /** `"id", "workspace_id", …`: every stored column, by its database name. */
  readonly selectList: string;
  /** The table, quoted. */
  readonly table: string;
  /** ` AND "deletion_time" IS NULL` for a soft-deleted entity (a `@DeleteDateColumn`), as `find` filters it; else empty. */
  readonly notDeleted: string;
  private readonly columns: ColumnMetadata[];

  constructor(private readonly metadata: EntityMetadata) {
    // Relations are left unloaded, as `find` leaves them unless asked; eager ones it would load.
    if (metadata.childEntityMetadatas.length > 0 || metadata.eagerRelations.length > 0) {
      throw new Error(`${metadata.name} has eager relations or child entities: read it with TypeORM's find`);
    }
    const driver = metadata.connection.driver;
    this.columns = metadata.columns.filter((column) => !column.isVirtual);
    this.selectList = this.columns.map((column) => driver.escape(column.databaseName)).join(', ');
    this.table = metadata.tablePath
      .split('.')
      .map((part) => driver.escape(part))
      .join('.');
    const deleted = metadata.deleteDateColumn;
    this.notDeleted = deleted ? ` AND ${driver.escape(deleted.databaseName)} IS NULL` : '';
  }

  /** The entity of a row selected with {@link selectList}. */
  entityOf(row: Record<string, unknown>): E {
    const driver = this.metadata.connection.driver;
    const entity = this.metadata.create(undefined, { fromDeserializer: true }) as E;
    for (const column of this.columns) {
      const value = row[column.databaseName];
      if (value !== undefined) column.setEntityValue(entity, driver.prepareHydratedValue(value, column));
    }
    return entity;
  }
}
