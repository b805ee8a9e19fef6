// Migrates a scratch database and asks TypeORM what it would still change: anything means the
// entities and the migrations disagree (a migration is missing or was edited by hand).
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dropDatabase, ensureDatabase } from '../src/database/ensure-database.js';
import { typeormOptions } from '../src/database/typeorm-options.js';

async function main(): Promise<void> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/messaging');
  base.pathname = `/migration_check_${process.pid}`;
  const url = base.toString();
  await ensureDatabase(url);
  const dataSource = new DataSource(typeormOptions(url));
  try {
    await dataSource.initialize();
    await dataSource.runMigrations();
    const pending = await dataSource.driver.createSchemaBuilder().log();
    if (pending.upQueries.length > 0) {
      console.error('Entities and migrations disagree. A migration would run:');
      for (const query of pending.upQueries) console.error(`  ${query.query};`);
      console.error('Generate one with: npm run migration:generate -- migrations/<Name>');
      process.exitCode = 1;
    } else {
      console.log('Entities and migrations agree.');
    }
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await dropDatabase(url);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
