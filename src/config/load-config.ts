import { existsSync } from 'node:fs';
import { AppConfig } from './app-config.js';
import { validateEnv } from './env.schema.js';

let cached: AppConfig | undefined;

/**
 * Reads `.env` (when present, without overriding real variables), validates the
 * environment and returns the process-wide configuration.
 */
export function loadConfig(): AppConfig {
  if (cached) return cached;
  if (existsSync('.env') && process.env.NODE_ENV !== 'test') process.loadEnvFile('.env');
  cached = new AppConfig(validateEnv(process.env));
  return cached;
}

/** Forgets the cached configuration (tests boot several apps with different environments in one process). */
export function resetConfig(): void {
  cached = undefined;
}
