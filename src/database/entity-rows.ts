import type { EntityMetadata, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

/**
 * Reads and writes an entity's rows with plain SQL: the select list of every stored column, the
 * entity made from a row the way TypeORM's own reads make it (the driver's conversion of each value,
 * column transformers, embedded columns), and an entity's INSERT, without building the query anew
 * on every call.
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
  /** The columns an INSERT may set, as TypeORM's insert chooses them (not an auto-increment key). */
  private readonly insertable: ColumnMetadata[];
  /** INSERT texts by the columns an entity sets and its first parameter's number. */
  private readonly insertTexts = new Map<string, string>();

  constructor(private readonly metadata: EntityMetadata) {
    // Relations are left unloaded, as `find` leaves them unless asked; eager ones it would load.
    if (metadata.childEntityMetadatas.length > 0 || metadata.eagerRelations.length > 0) {
      throw new Error(`${metadata.name} has eager relations or child entities: read it with TypeORM's find`);
    }
    const driver = metadata.connection.driver;
    this.columns = metadata.columns.filter((column) => !column.isVirtual);
    this.insertable = this.columns.filter(
      (column) => column.isInsert && !(column.isGenerated && column.generationStrategy === 'increment'),
    );
    this.selectList = this.columns.map((column) => driver.escape(column.databaseName)).join(', ');
    this.table = metadata.tablePath
      .split('.')
      .map((part) => driver.escape(part))
      .join('.');
    const deleted = metadata.deleteDateColumn;
    this.notDeleted = deleted ? ` AND ${driver.escape(deleted.databaseName)} IS NULL` : '';
  }

  /**
   * `INSERT INTO <table> (<columns>) VALUES ($firstParam, …)` of the entity's stored columns, each
   * value converted as TypeORM's insert converts it (the driver's conversion: jsonb to text, column
   * transformers); a column the entity leaves undefined is left out, so the database's default fills
   * it. The caller may append `ON CONFLICT …` and `RETURNING …`. An entity with a version or a
   * discriminator column (TypeORM fills those itself) is inserted with TypeORM; this refuses it.
   */
  insertOf(entity: E, firstParam = 1): { sql: string; params: unknown[] } {
    if (this.metadata.versionColumn || this.metadata.discriminatorColumn) {
      throw new Error(`${this.metadata.name} has a version or discriminator column: insert it with TypeORM`);
    }
    const driver = this.metadata.connection.driver;
    const set: number[] = [];
    const params: unknown[] = [];
    this.insertable.forEach((column, index) => {
      const value: unknown = column.getEntityValue(entity);
      if (value === undefined) return;
      set.push(index);
      params.push(driver.preparePersistentValue(value, column));
    });
    const key = `${firstParam}:${set.join(',')}`;
    let sql = this.insertTexts.get(key);
    if (!sql) {
      const names = set.map((index) => driver.escape(this.insertable[index].databaseName)).join(', ');
      const placeholders = set.map((_, i) => `$${firstParam + i}`).join(', ');
      sql = `INSERT INTO ${this.table} (${names}) VALUES (${placeholders})`;
      this.insertTexts.set(key, sql);
    }
    return { sql, params };
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
