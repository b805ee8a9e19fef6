/**
 * Secrets a production process refuses to start with: values published in this repository (the
 * compose file's old defaults, the examples), placeholders, and keys with almost no entropy (the
 * all-zero ENCRYPTION_KEY). Each of them would let anyone who read the repository mint tokens, call
 * the admin API or decrypt channel credentials.
 */
const PUBLISHED_SECRETS = new Set([
  'change-me-to-a-long-random-secret-please',
  'change-me-admin-key',
  'openapi-generation-only-'.padEnd(40, 'x'),
]);
const PLACEHOLDER = /change[-_ ]?me|replace[-_ ]?me|your[-_ ]?secret|placeholder|example/i;

/** A random 32-byte key has about 30 distinct byte values; fewer than 16 is a made-up key. */
const MIN_DISTINCT_KEY_BYTES = 16;
/** A random string of 16 or more printable characters has at least 10 distinct ones. */
const MIN_DISTINCT_SECRET_CHARS = 10;

interface SecretsInput {
  JWT_SECRET?: string;
  ADMIN_API_KEY?: string;
  /** The decoded ENCRYPTION_KEY. */
  encryptionKey?: Buffer;
}

const HOW_TO_GENERATE = 'generate one with `openssl rand -hex 32`';

/** The problems, one line per variable, in the configuration error's format; empty when all is well. */
export function productionSecretProblems(input: SecretsInput): string[] {
  const problems: string[] = [];
  for (const name of ['JWT_SECRET', 'ADMIN_API_KEY'] as const) {
    const value = input[name];
    if (value !== undefined && isGuessable(value)) {
      problems.push(`  ${name}: a published, placeholder or low-entropy value is refused when NODE_ENV=production; ${HOW_TO_GENERATE}`);
    }
  }
  if (input.encryptionKey && new Set(input.encryptionKey).size < MIN_DISTINCT_KEY_BYTES) {
    problems.push(`  ENCRYPTION_KEY: a key of repeated bytes (such as all zeros) is refused when NODE_ENV=production; ${HOW_TO_GENERATE}`);
  }
  return problems;
}

function isGuessable(secret: string): boolean {
  return PUBLISHED_SECRETS.has(secret) || PLACEHOLDER.test(secret) || new Set(secret).size < MIN_DISTINCT_SECRET_CHARS;
}
