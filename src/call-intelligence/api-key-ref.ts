/**
 * A provider's `apiKeyRef` (API.md §16) is the key itself, or `env:NAME`: the value of the worker's
 * environment variable NAME, so that an operator's key never enters the database. Only variables
 * named for this purpose can be referred to: a workspace must not be able to send the server's own
 * secrets (DATABASE_URL, JWT_SECRET) to a base URL of its choosing.
 */
export const KEY_ENV_PREFIX = 'CALL_INTELLIGENCE_KEY_';
const ENV_REF = /^env:(.*)$/s;
const ENV_NAME = new RegExp(`^${KEY_ENV_PREFIX}[A-Z0-9_]+$`);

/** Why `ref` cannot be stored, or null when it can. */
export function apiKeyRefProblem(ref: string): string | null {
  const name = ENV_REF.exec(ref)?.[1];
  if (name === undefined || ENV_NAME.test(name)) return null;
  return `An environment reference must name a variable ${KEY_ENV_PREFIX}<NAME> (capitals, digits, underscores), e.g. env:${KEY_ENV_PREFIX}OPENAI.`;
}

/** The key a stored ref stands for: `{ key }`, or `{ problem }` when its variable is not set here. */
export function resolveApiKeyRef(ref: string, env: NodeJS.ProcessEnv = process.env): { key: string } | { problem: string } {
  const name = ENV_REF.exec(ref)?.[1];
  if (name === undefined) return { key: ref };
  const value = env[name];
  return value ? { key: value } : { problem: `The API key's environment variable ${name} is not set on this worker.` };
}
