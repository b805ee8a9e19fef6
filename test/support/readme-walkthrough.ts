import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** The fenced code blocks of one language in the part of a Markdown text from `fromHeading` to `toHeading`. */
export function codeBlocks(markdown: string, fromHeading: string, toHeading: string, language: string): string[] {
  const start = markdown.indexOf(`\n${fromHeading}\n`);
  const end = markdown.indexOf(`\n${toHeading}\n`, start + 1);
  if (start < 0 || end < 0) throw new Error(`The README has no section from "${fromHeading}" to "${toHeading}"`);
  const section = markdown.slice(start, end);
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]);
}

/**
 * One bash shell kept open across blocks, as a user's terminal is: variables and functions a block
 * defines are there for the next. Each block's output is what it printed until its end marker.
 */
export class ShellSession {
  private readonly shell: ChildProcessWithoutNullStreams;
  private buffer = '';
  private blockNumber = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.shell = spawn('bash', ['--noprofile', '--norc'], { cwd, env, detached: true });
    this.shell.stdout.on('data', (chunk: Buffer) => (this.buffer += chunk.toString('utf8')));
    this.shell.stderr.on('data', (chunk: Buffer) => (this.buffer += chunk.toString('utf8')));
  }

  /** Runs `block` and answers what it printed (stdout and stderr) and the exit status of its last command. */
  async run(block: string, timeoutMs = 60_000): Promise<{ output: string; status: number }> {
    const marker = `__block_${++this.blockNumber}_done__`;
    this.buffer = '';
    this.shell.stdin.write(`${block}\necho "${marker} $?"\n`);
    const deadline = Date.now() + timeoutMs;
    const pattern = new RegExp(`${marker} (\\d+)\\n`);
    for (;;) {
      const found = pattern.exec(this.buffer);
      if (found) return { output: this.buffer.slice(0, found.index), status: Number(found[1]) };
      if (Date.now() > deadline)
        throw new Error(`This block did not finish within ${timeoutMs} ms:\n${block}\nIt printed:\n${this.buffer}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    try {
      process.kill(-this.shell.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
