import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

// Compiled layout: dist/src/database/this-file.js, dist/src/**/*.entity.js, dist/migrations/*.js
const distRoot = join(__dirname, '..', '..');

/** The one description of our database, shared by the app, the TypeORM CLI and the migration check. */
export function typeormOptions(url: string, poolSize = 20): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: [join(distRoot, 'src', '**', '*.entity.js')],
    migrations: [join(distRoot, 'migrations', '*.js')],
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    extra: { max: poolSize, connectionTimeoutMillis: 5000 },
  };
}
