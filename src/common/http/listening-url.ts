/**
 * The base URL of the HTTP listener as a person would type it: the configured host (HOST), with a
 * wildcard (`0.0.0.0`, `::`) named `localhost`, and the port actually bound (PORT, or the one the
 * system chose for PORT=0).
 */
export function listeningUrl(host: string, port: number): string {
  const name = host === '' || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The start's line naming where to go: `API on http://localhost:3010, Swagger UI at http://localhost:3010/docs, role=all`. */
export function apiStartedMessage(url: string, role: string): string {
  return `API on ${url}, Swagger UI at ${url}/docs, role=${role}`;
}
