import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (tests and benchmarks start servers on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
