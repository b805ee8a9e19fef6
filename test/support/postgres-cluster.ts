import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** The newest installed server's programs (Debian keeps them in /usr/lib/postgresql/<major>/bin). */
function binDir(): string {
  const majors = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (majors.length === 0) throw new Error('No PostgreSQL server programs under /usr/lib/postgresql');
  return join('/usr/lib/postgresql', majors[0], 'bin');
}

/**
 * A private PostgreSQL cluster on a free port, for tests that stop and restart the database under
 * load; the machine's shared server is never touched. The server refuses to run as root, so as root
 * the cluster belongs to the `postgres` user. Trust authentication, no fsync: it holds test data only.
 */
export class ScratchPostgres {
  private readonly bin = binDir();
  private readonly asRoot = userInfo().uid === 0;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<ScratchPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'msg-pg-'));
    const cluster = new ScratchPostgres(await freePort(), dir);
    if (cluster.asRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    await cluster.pg('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await cluster.start();
    return cluster;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** A URL for `database` on this cluster. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c full_page_writes=off`;
    await this.pg('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', join(this.dir, 'server.log'), '-w', '-t', '30', 'start']);
  }

  /** Stops the server as an operator's restart does: sessions are cut, open transactions rolled back. */
  async stop(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  }

  /** As a peer of `describeWithApp`: stopped and removed once the app has closed. */
  async close(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async pg(program: string, args: string[]): Promise<void> {
    const path = join(this.bin, program);
    if (this.asRoot) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}
