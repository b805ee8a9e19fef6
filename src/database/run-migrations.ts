import { DataSource } from 'typeorm';
import { typeormOptions } from './typeorm-options.js';

const MIGRATION_LOCK = 727_000;

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so an API and workers starting
 * together migrate once, one after the other, instead of racing.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource({ ...typeormOptions(url), extra: { max: 1 } });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await dataSource.destroy();
  }
}
