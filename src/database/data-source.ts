import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { typeormOptions } from './typeorm-options.js';

/** Used by the TypeORM CLI (`npm run migration:*`) against the compiled build. */
export default new DataSource(typeormOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/messaging'));
