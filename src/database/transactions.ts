import { ClsPluginTransactional, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
import type { EntityManager } from 'typeorm';

/**
 * Ambient transactions (`@nestjs-cls/transactional` over TypeORM). A service method marked
 * {@link Transactional} runs in one transaction, joined by every method it calls; repositories
 * read the transaction from the async context ({@link currentManager}), so no service passes an
 * `EntityManager` around. Outside a transaction each statement commits on its own, as before.
 */
export { Transactional };

/** The module that binds the ambient transaction to the app's TypeORM data source (import it after `TypeOrmModule.forRoot…`). */
export function transactionsModule(): DynamicModule {
  return ClsModule.forRoot({
    global: true,
    plugins: [
      new ClsPluginTransactional({
        imports: [TypeOrmModule],
        adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
      }),
    ],
  });
}

function host(): TransactionHost<TransactionalAdapterTypeOrm> {
  return TransactionHost.getInstance<TransactionalAdapterTypeOrm>();
}

/** Runs `work` in a transaction, or in the caller's when one is open (for work that is not a method). */
export function inTransaction<T>(work: () => Promise<T>): Promise<T> {
  return host().withTransaction(work);
}

/** Whether the caller runs inside a transaction. */
export function isInTransaction(): boolean {
  return host().isTransactionActive();
}

/**
 * The manager of the ambient transaction, or the data source's own outside one. For repositories
 * and the database layer only (a lint rule keeps services from it).
 */
export function currentManager(): EntityManager {
  return host().tx;
}
