import type {
  DeepPartial,
  EntityManager,
  FindManyOptions,
  FindOptionsWhere,
  ObjectLiteral,
  QueryDeepPartialEntity,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import { EntityRows } from './entity-rows.js';
import { currentManager, isInTransaction } from './transactions.js';

/** An entity that belongs to one workspace. */
export interface WorkspaceOwned extends ObjectLiteral {
  workspaceId: string;
}

/** Thrown when workspace data is asked for without a workspace: a programming error, never a user's. */
export class MissingWorkspaceError extends Error {
  constructor(entity: string) {
    super(`A query of ${entity} was made without a workspace id`);
  }
}

/** Every scoped method's options but `where`, which the repository builds with the workspace. */
export type ScopedFindOptions<E extends ObjectLiteral> = Omit<FindManyOptions<E>, 'where'>;

/**
 * The only way feature code reaches a workspace's rows. Every method takes the workspace first and
 * refuses to run without it; the filter is added here, not by each caller. Every statement runs in
 * the ambient transaction when one is open (`@Transactional()` on the calling service). Reads that truly span workspaces (operators' routes, provider
 * callbacks authenticated by their own signature) go through {@link unscoped} with a reason, so
 * each one is named and greppable.
 *
 * A module subclasses it per entity, adds its own queries (SQL lives here, not in services), and
 * exports it only if another module must read those rows; usually it exports a service instead.
 */
export abstract class WorkspaceScopedRepository<E extends WorkspaceOwned> {
  protected constructor(private readonly base: Repository<E>) {}

  /** The entity's repository in the ambient transaction, or the plain one outside a transaction. */
  protected get repository(): Repository<E> {
    return boundToCurrent(this.base);
  }

  protected get manager(): EntityManager {
    return currentManager();
  }

  /** `where` narrowed to the workspace; throws when the workspace is missing. */
  protected scope(workspaceId: string, where: FindOptionsWhere<E> = {}): FindOptionsWhere<E> {
    if (typeof workspaceId !== 'string' || workspaceId.length === 0) throw new MissingWorkspaceError(this.entityName);
    return { ...where, workspaceId };
  }

  private get entityName(): string {
    return this.base.metadata.name;
  }

  find(workspaceId: string, where: FindOptionsWhere<E> = {}, options: ScopedFindOptions<E> = {}): Promise<E[]> {
    return this.repository.find({ ...options, where: this.scope(workspaceId, where) });
  }

  findOne(workspaceId: string, where: FindOptionsWhere<E>, options: { lock?: boolean } = {}): Promise<E | null> {
    return this.repository.findOne({
      where: this.scope(workspaceId, where),
      ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The row of the workspace with this id; `lock` takes it FOR UPDATE (in a transaction). */
  async findById(workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<E | null> {
    // As TypeORM's pessimistic lock does: outside a transaction the lock would end with the statement.
    if (options.lock && !isInTransaction()) throw new Error('findById with lock needs a transaction (@Transactional)');
    const [found] = await this.selectEntities(workspaceId, `AND id = $2${options.lock ? ' FOR UPDATE' : ''}`, [id]);
    return found ?? null;
  }

  findByIds(workspaceId: string, ids: readonly string[]): Promise<E[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.selectEntities(workspaceId, 'AND id = ANY($2)', [ids]);
  }

  count(workspaceId: string, where: FindOptionsWhere<E> = {}): Promise<number> {
    return this.repository.count({ where: this.scope(workspaceId, where) });
  }

  exists(workspaceId: string, where: FindOptionsWhere<E> = {}): Promise<boolean> {
    return this.repository.exists({ where: this.scope(workspaceId, where) });
  }

  /** A new entity of this workspace (not yet saved). */
  create(workspaceId: string, values: DeepPartial<E>): E {
    this.scope(workspaceId);
    return this.repository.create({ ...values, workspaceId } as DeepPartial<E>);
  }

  /** Saves entities of this workspace; one of another workspace is refused. */
  async save<T extends E | E[]>(workspaceId: string, entities: T): Promise<T> {
    this.scope(workspaceId);
    for (const entity of Array.isArray(entities) ? entities : [entities]) {
      if (entity.workspaceId !== workspaceId) throw new MissingWorkspaceError(`${this.entityName} of another workspace`);
    }
    return this.repository.save(entities as DeepPartial<E>) as unknown as Promise<T>;
  }

  /** Updates the matching rows of the workspace; the number updated. */
  async update(workspaceId: string, where: FindOptionsWhere<E>, patch: QueryDeepPartialEntity<E>): Promise<number> {
    return (await this.repository.update(this.scope(workspaceId, where), patch)).affected ?? 0;
  }

  /** Deletes the matching rows of the workspace; the number deleted. */
  async delete(workspaceId: string, where: FindOptionsWhere<E>): Promise<number> {
    return (await this.repository.delete(this.scope(workspaceId, where))).affected ?? 0;
  }

  /** A query builder over `alias` already filtered to the workspace (`:workspaceId` is bound). */
  queryBuilder(workspaceId: string, alias: string): SelectQueryBuilder<E> {
    this.scope(workspaceId);
    return this.repository.createQueryBuilder(alias).where(`${alias}.workspace_id = :workspaceId`, { workspaceId });
  }

  /**
   * Raw SQL whose first parameter is the workspace: `sql` must filter with `workspace_id = $1`
   * (checked), and `params` are `$2` onwards.
   */
  protected async sql<R>(workspaceId: string, sql: string, params: unknown[] = []): Promise<R[]> {
    this.scope(workspaceId);
    if (!/workspace_id\s*=\s*\$1\b/.test(sql)) throw new MissingWorkspaceError(`${this.entityName} (SQL without workspace_id = $1)`);
    return this.manager.query<R[]>(sql, [workspaceId, ...params]);
  }

  /**
   * Whole entities of the workspace by SQL, for hot reads: `SELECT <every column> FROM <table>
   * WHERE workspace_id = $1 <rest>`, `rest` going on with ` AND …`, `ORDER BY …`, `LIMIT …` over
   * `params` ($2 onwards). Soft-deleted rows are left out, as `find` leaves them out. The SQL text
   * is fixed, unlike `find`'s, which TypeORM builds anew each call.
   */
  protected async selectEntities(workspaceId: string, rest: string, params: unknown[] = []): Promise<E[]> {
    const rows = this.rows;
    const found = await this.sql<Record<string, unknown>>(
      workspaceId,
      `SELECT ${rows.selectList} FROM ${rows.table} WHERE workspace_id = $1${rows.notDeleted} ${rest}`,
      params,
    );
    return found.map((row) => rows.entityOf(row));
  }

  /**
   * What {@link moveToContact} keeps: with `unlessTargetHas`, a row whose column of that name the
   * other contact already has a row for stays where it is (a property value the survivor has).
   */
  protected readonly contactMove: { unlessTargetHas?: string } = {};

  /**
   * Hands a contact's rows to another contact of the workspace (a merge of two contacts), for
   * tables with a `contact_id`; the ids of the rows moved. The one implementation every
   * contact-owned table uses.
   */
  async moveToContact(workspaceId: string, fromContactId: string, toContactId: string): Promise<string[]> {
    if (!this.base.metadata.findColumnWithDatabaseName('contact_id')) throw new Error(`${this.entityName} has no contact_id`);
    const column = this.contactMove.unlessTargetHas;
    const keep = column
      ? ` AND NOT EXISTS (SELECT 1 FROM ${this.rows.table} s WHERE s.workspace_id = $1 AND s.contact_id = $3 AND s.${column} = m.${column})`
      : '';
    const moved = await this.sql<{ id: string }>(
      workspaceId,
      // A SELECT over the UPDATE: TypeORM answers a bare UPDATE … RETURNING as [rows, count].
      `WITH moved AS (UPDATE ${this.rows.table} m SET contact_id = $3 WHERE m.workspace_id = $1 AND m.contact_id = $2${keep} RETURNING m.id)
       SELECT id FROM moved`,
      [fromContactId, toContactId],
    );
    return moved.map((row) => row.id);
  }

  /** The entity's INSERT as plain SQL from its first parameter on (see {@link EntityRows.insertOf}), its text built once. */
  protected insertOf(entity: E, firstParam = 1): { sql: string; params: unknown[] } {
    return this.rows.insertOf(entity, firstParam);
  }

  private get rows(): EntityRows<E> {
    return (this.entityRows ??= new EntityRows<E>(this.base.metadata));
  }

  private entityRows?: EntityRows<E>;

  /**
   * The repository without the workspace filter, for the few reads that span workspaces. `reason`
   * says why this one may (it is for readers of the code; keep it short).
   */
  protected unscoped(reason: string): Repository<E> {
    void reason;
    return this.repository;
  }
}

/** `repository` in the ambient transaction: TypeORM keeps one repository per manager, so this allocates nothing after the first call. */
export function boundToCurrent<E extends ObjectLiteral>(repository: Repository<E>): Repository<E> {
  const manager = currentManager();
  return manager === repository.manager ? repository : manager.getRepository<E>(repository.target);
}
