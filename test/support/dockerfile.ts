/**
 * The parts of the Dockerfile that say how the image is built and what it holds, read so that a test
 * can do the same on this machine, where no Docker engine runs: the build stage's commands after the
 * sources are copied in, and the runtime stage's copies, environment and command.
 */
export interface DockerfilePlan {
  /** The build stage's RUN commands after `COPY . .` (the build itself). */
  buildCommands: string[];
  /** The runtime stage's `COPY --from=<build stage>` and `COPY` lines: paths relative to the build's WORKDIR and the runtime's. */
  runtimeCopies: Array<{ from: string; to: string }>;
  /** The runtime stage's ENV settings. */
  runtimeEnv: Record<string, string>;
  /** The runtime stage's CMD, as argv. */
  runtimeCommand: string[];
}

export function readDockerfile(text: string): DockerfilePlan {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stageStarts = lines.flatMap((line, index) => (/^FROM /i.test(line) ? [index] : []));
  if (stageStarts.length !== 2) throw new Error(`Expected a build stage and a runtime stage, found ${stageStarts.length} FROM lines`);
  const build = lines.slice(stageStarts[0], stageStarts[1]);
  const runtime = lines.slice(stageStarts[1]);
  const buildWorkdir = argument(build, 'WORKDIR');
  const runtimeWorkdir = argument(runtime, 'WORKDIR');

  const sourcesCopied = build.findIndex((line) => /^COPY \. \.$/i.test(line));
  if (sourcesCopied < 0) throw new Error('The build stage has no `COPY . .`');
  const buildCommands = build.slice(sourcesCopied + 1).flatMap((line) => (/^RUN /i.test(line) ? [line.slice(4).trim()] : []));

  const runtimeCopies = runtime.flatMap((line) => {
    const copy = /^COPY (?:--from=\S+ )?(\S+) (\S+)$/i.exec(line);
    if (!copy) return [];
    return [{ from: relativeTo(buildWorkdir, copy[1]), to: relativeTo(runtimeWorkdir, copy[2]) }];
  });
  const runtimeEnv: Record<string, string> = {};
  for (const line of runtime.filter((l) => /^ENV /i.test(l))) {
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [name, ...value] = pair.split('=');
      runtimeEnv[name] = value.join('=');
    }
  }
  const command = runtime.find((line) => /^CMD /i.test(line));
  if (!command) throw new Error('The runtime stage has no CMD');
  return { buildCommands, runtimeCopies, runtimeEnv, runtimeCommand: JSON.parse(command.slice(4)) as string[] };
}

function argument(stage: string[], instruction: string): string {
  const line = stage.find((l) => l.toUpperCase().startsWith(`${instruction} `));
  if (!line) throw new Error(`A stage has no ${instruction}`);
  return line.slice(instruction.length + 1).trim();
}

/** `/app/dist/src` → `dist/src`, `./dist/src` → `dist/src`, `package.json` → `package.json`. */
function relativeTo(workdir: string, path: string): string {
  const inside = path.startsWith(`${workdir}/`) ? path.slice(workdir.length + 1) : path;
  return inside.replace(/^\.\//, '').replace(/\/$/, '') || '.';
}
