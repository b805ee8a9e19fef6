import { waitFor } from './fixtures.js';
import type { TestApp } from './test-app.js';

/** Waits until `/health/ready` answers `status` (503 while a dependency is down, 200 once it is back); returns that answer. */
export function readinessBecomes(t: TestApp, status: 200 | 503, timeoutMs: number, what: string) {
  return waitFor(
    async () => {
      const res = await t.http.get('/health/ready');
      return res.status === status ? res : undefined;
    },
    timeoutMs,
    what,
  );
}
