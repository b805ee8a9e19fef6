import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { readDockerfile } from '../support/dockerfile.js';
import { FreshClone, nodeRuntimes, plain, until, type RecordingChild } from '../support/fresh-clone.js';
import { freePort } from '../support/free-port.js';
import { codeBlocks, ShellSession } from '../support/readme-walkthrough.js';
import { deleteRedisKeys } from '../support/redis-keys.js';

/**
 * The README's promise to a new user, kept by running it: a clone of the committed HEAD in a temporary
 * folder, `npm ci && npm start` with each Node.js on the machine, then "Your first hour" block by block
 * in one bash session, with `npm run webhooks:listen` in a second process, as a user with two terminals
 * would. Only the ports (3000, 4000) and the credentials' placeholders are replaced. A Node.js older
 * than the project supports must be refused at `npm start` with a message saying what to do.
 * Then the image: the Dockerfile's build commands in the same clone, its runtime stage's files copied
 * to a folder of their own and its command started there in production mode.
 */
const NODE_RUNTIMES = nodeRuntimes();
const SUPPORTED_MAJOR = 22;
const RUN_ID = `${process.pid}_${randomBytes(3).toString('hex')}`;
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/msg_first_run_${RUN_ID}`;
const REDIS_PREFIX = `msgtest:first-run:${RUN_ID}`;

describe('A fresh clone, as the README tells a new user to start it', () => {
  after(async () => {
    await dropDatabase(DATABASE_URL);
    await deleteRedisKeys(REDIS_PREFIX);
  });

  it('finds the Node.js versions to try: this one and the machine’s own', () => {
    console.log(`Node.js versions on this machine: ${NODE_RUNTIMES.map((n) => `${n.version} (${n.bin})`).join(', ')}`);
    assert.ok(NODE_RUNTIMES.some((n) => n.bin === process.execPath));
  });

  for (const node of NODE_RUNTIMES.filter((n) => n.major < SUPPORTED_MAJOR)) {
    it(`refuses Node.js ${node.version} at npm start, before building, and says what to do`, { timeout: 5 * 60_000 }, async () => {
      const clone = FreshClone.create(node);
      try {
        const install = await clone.run('npm ci --no-audit --no-fund');
        assert.equal(install.code, 0, install.output);
        const start = await clone.run('npm start', { PORT: String(await freePort()) }, 60_000);
        assert.equal(start.code, 1, start.output);
        assert.match(
          start.output,
          new RegExp(`needs Node\\.js 22\\.12\\.0 or later; this is Node\\.js ${node.version.replace(/\./g, '\\.')}`),
        );
        assert.match(start.output, /npm install --prefix ~\/\.node24 node@24/);
        assert.doesNotMatch(start.output, /nest build|error TS/, 'refused before building');
        const test = await clone.run('npm test', {}, 60_000);
        assert.equal(test.code, 1);
        assert.match(test.output, /needs Node\.js 22\.12\.0 or later/);
      } finally {
        clone.close();
      }
    });
  }

  for (const node of NODE_RUNTIMES.filter((n) => n.major >= SUPPORTED_MAJOR)) {
    it(
      `runs "npm ci && npm start" and "Your first hour" as written with Node.js ${node.version}, then the image's runtime stage`,
      { timeout: 14 * 60_000 },
      async () => {
        const clone = FreshClone.create(node);
        try {
          await firstHour(clone);
          await imageRuntimeStage(clone);
        } finally {
          clone.close();
        }
      },
    );
  }
});

/** Seconds since `start`, for the log of how long a new user waits. */
const since = (start: number) => `${((Date.now() - start) / 1000).toFixed(1)} s`;

async function firstHour(clone: FreshClone): Promise<void> {
  const started = Date.now();
  const install = await clone.run('npm ci --no-audit --no-fund');
  assert.equal(install.code, 0, install.output);
  console.log(`npm ci: ${since(started)}`);

  const apiPort = await freePort();
  const listenerPort = await freePort();
  const endpointListenerPort = await freePort();
  const service = clone.spawn('npm start', {
    PORT: String(apiPort),
    PUBLIC_BASE_URL: `http://localhost:${apiPort}`,
    DATABASE_URL,
    REDIS_KEY_PREFIX: REDIS_PREFIX,
  });
  const credentials = await printedCredentials(service);
  await until('GET /health/live', () => answers(`http://127.0.0.1:${apiPort}/health/live`), 30_000);
  console.log(`npm start, its build included, to the printed credentials and /health/live: ${since(started)}`);

  const readme = readFileSync(join(clone.dir, 'README.md'), 'utf8');
  const blocks = codeBlocks(readme, '## Your first hour', '### In the Swagger UI', 'bash').map((block) =>
    block
      .replaceAll('localhost:3000', `localhost:${apiPort}`)
      .replaceAll('localhost:4000', `localhost:${listenerPort}`)
      .replaceAll('--port 4000', `--port ${listenerPort}`)
      .replaceAll('localhost:4001', `localhost:${endpointListenerPort}`)
      .replaceAll('--port 4001', `--port ${endpointListenerPort}`)
      .replace(/^export B=.*$/m, (line) => fillCredentials(line, credentials)),
  );
  assert.equal(blocks.length, 13, 'the first hour has thirteen bash blocks');
  const [
    login,
    coldSend,
    inboundThenSend,
    timeline,
    listen,
    webhookSetup,
    endpoint,
    listenEndpoint,
    template,
    usage,
    tiers,
    userCall,
    callRecord,
  ] = blocks;
  assert.match(listen, /^npm run webhooks:listen/, 'the fifth block starts the webhook receiver');
  assert.match(listenEndpoint, /^npm run webhooks:listen .*whsec_…/, "the eighth block starts the endpoint's receiver with its secret");

  const shell = new ShellSession(clone.dir, clone.env);
  let listener: RecordingChild | undefined;
  let endpointListener: RecordingChild | undefined;
  try {
    const channels = await shell.run(login);
    assert.match(channels.output, new RegExp(`"id": "${credentials.channelId}"`), channels.output);

    assert.match((await shell.run(coldSend)).output, /^"WhatsApp:ServiceWindowExpired"$/m);

    const accepted = await shell.run(inboundThenSend);
    assert.match(accepted.output, /"messageId": ?"/, 'the sandbox inbound answers its messageId');
    assert.match(accepted.output, /"status": "accepted"/, accepted.output);

    // "The sandbox answers sent, delivered and read within a second or two": the user looks again until it has.
    let shown = '';
    await until(
      'the timeline to show the message Read',
      async () => {
        shown = (await shell.run(timeline)).output;
        return shown.includes('{"direction":2,"status":"Read","body":"Hello from the API"}');
      },
      20_000,
      1_000,
    );
    assert.match(shown, /\{"direction":1,"status":"Received","body":"Hi, where is my order\?"\}/);

    listener = clone.spawn(listen.trim(), { WEBHOOK_SECRET: credentials.webhookSecret });
    await until('the receiver to listen', () => listener!.output.includes('Listening for webhooks'), 30_000);
    assert.match(listener.output, /checking signatures with 1 secret\(s\)/);

    const setup = await shell.run(webhookSetup);
    assert.match(setup.output, new RegExp(`"webhookUrl": "http://localhost:${listenerPort}/hooks"`), setup.output);
    assert.match(setup.output, /"status":"accepted"/, 'the last send is accepted');

    await until('four verified webhooks', () => (listener!.output.match(/signature OK → answering 204/g) ?? []).length >= 4, 20_000);
    console.log(`From npm ci to the fourth verified webhook: ${since(started)}`);
    const received = plain(listener.output);
    assert.doesNotMatch(received, /signature INVALID/);
    assert.match(received, /Inbound Text "Is it shipped\?"/);
    for (const status of ['Sent', 'Delivered', 'Read'])
      assert.match(received, new RegExp(`Outbound Text ${status} "Yes, it left today\\."`));

    // First template, and what it cost: the endpoint's own secret goes to a second receiver, as the README says.
    const hookSecret = (await shell.run(endpoint)).output.trim();
    assert.match(hookSecret, /^whsec_\S+$/, hookSecret);
    endpointListener = clone.spawn(listenEndpoint.trim().replace(/#.*$/, '').replace('whsec_…', hookSecret).trim(), {});
    await until("the endpoint's receiver to listen", () => endpointListener!.output.includes('Listening for webhooks'), 30_000);
    const created = await shell.run(template);
    assert.match(created.output, /^\{"name":"parcel_on_its_way","status":"PENDING","category":"UTILITY"\}$/m, created.output);
    assert.match(created.output, /^\{"name":"parcel_on_its_way","status":"APPROVED"\}$/m, created.output);
    assert.match(created.output, /^\{"status":"accepted"\}$/m, created.output);
    await until(
      'the verified whatsapp.template_updated',
      () => /event=whatsapp\.template_updated[^\n]*\n\s*signature OK/.test(plain(endpointListener!.output)),
      20_000,
    );
    assert.match(plain(endpointListener.output), /"previousStatus": "PENDING"/);
    let counted = '';
    await until(
      'the usage to count the template',
      async () => {
        counted = (await shell.run(usage)).output;
        return counted.includes('"utility":{"billable":1,"free":0}');
      },
      20_000,
      1_000,
    );
    assert.match(counted, /"service":\{"billable":0,"free":2\}/, counted);
    const tiered = await shell.run(tiers);
    assert.match(tiered.output, /\{"messagingLimit":10000,"setBy":"Meta"\}/, tiered.output);
    await until(
      'the verified channel.quality_updated',
      () => /event=channel\.quality_updated[^\n]*\n\s*signature OK/.test(plain(endpointListener!.output)),
      20_000,
    );

    // Your first WhatsApp IVR call: the flow answers the sandbox user's call, and the record has the answer.
    const calling = await shell.run(userCall);
    assert.match(calling.output, /^\{"enabled":true,"answersWithFlow":true\}$/m, calling.output);
    let call = '';
    await until(
      "the WhatsApp call to end with the caller's answer",
      async () => {
        call = (await shell.run(callRecord)).output;
        return call.includes('"status":4');
      },
      30_000,
      1_000,
    );
    assert.match(call, /^\{"direction":1,"status":4,"answers":\[\{"digit":"1","description":"Sales"\}\]\}$/m, call);

    await clientReadmeExample(clone, {
      B: `http://localhost:${apiPort}`,
      CLIENT_ID: credentials.clientId,
      CLIENT_SECRET: credentials.clientSecret,
    });
  } finally {
    shell.close();
    if (listener) await clone.stop(listener);
    if (endpointListener) await clone.stop(endpointListener);
    const code = await clone.stop(service);
    console.log(`npm start stopped by SIGTERM with exit code ${code}`);
  }
}

/**
 * The typed client's README example, as its README says to run it after the first hour: the first
 * TypeScript block under "## Use", saved inside the repository and run by Node's type stripping,
 * twice (it finds the contact it made the first time).
 */
async function clientReadmeExample(clone: FreshClone, env: Record<string, string>): Promise<void> {
  if (clone.node.major < 23) return; // type stripping runs by default from Node 23.6; the README says Node 24
  const readme = readFileSync(join(clone.dir, 'clients/typescript/README.md'), 'utf8');
  const [example] = codeBlocks(readme, '## Use', '## Webhooks', 'ts');
  assert.ok(example, 'the client README has a TypeScript block under "## Use"');
  writeFileSync(join(clone.dir, 'first-client.mts'), example);
  for (const run of [1, 2]) {
    const result = await clone.run('node first-client.mts', env, 60_000);
    assert.equal(result.code, 0, `run ${run}:\n${result.output}`);
    assert.match(result.output, /^Sent order_update to \+\d+: accepted$/m, result.output);
    assert.match(result.output, /^No such contact: 404 Contacts:ContactNotFound$/m);
  }
}

interface DemoCredentials {
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  channelId: string;
}

/** Reads the demo credentials `npm start` prints once, as the README tells the user to keep them. */
async function printedCredentials(service: RecordingChild): Promise<DemoCredentials> {
  const field = (pattern: RegExp) => pattern.exec(plain(service.output))?.[1];
  await until(
    'npm start to print the demo credentials',
    () => {
      if (service.exitCode !== null) throw new Error(`npm start exited with ${service.exitCode}:\n${service.output}`);
      return field(/Demo channel id \(the request examples' channelId\): (\S+)/) !== undefined;
    },
    240_000,
    500,
  );
  const credentials = {
    clientId: field(/^ *client_id: +(sa_\S+)$/m)!,
    clientSecret: field(/^ *client_secret: +(\S+)$/m)!,
    webhookSecret: field(/^ *webhook secret: +(whsec_\S+)$/m)!,
    channelId: field(/Demo channel id \(the request examples' channelId\): (\S+)/)!,
  };
  for (const [name, value] of Object.entries(credentials)) assert.ok(value, `npm start printed no ${name}:\n${service.output}`);
  return credentials;
}

/** The README's `export B=… CLIENT_ID=sa_… …` line with what npm start printed in place of the placeholders. */
function fillCredentials(line: string, credentials: DemoCredentials): string {
  const values: Record<string, string> = {
    CLIENT_ID: credentials.clientId,
    CLIENT_SECRET: credentials.clientSecret,
    WEBHOOK_SECRET: credentials.webhookSecret,
    CHANNEL: credentials.channelId,
  };
  let filled = line;
  for (const [name, value] of Object.entries(values)) {
    assert.match(filled, new RegExp(`\\b${name}=\\S*…`), `the README's export line sets ${name}`);
    filled = filled.replace(new RegExp(`\\b${name}=\\S*…`), `${name}=${value}`);
  }
  return filled;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

/**
 * What the image would run, without Docker: the Dockerfile's build commands in the clone, then its
 * runtime stage's copies into a folder of their own, started with its command and environment in
 * production mode on the database the first hour migrated. It must become ready, and must refuse an
 * all-zero ENCRYPTION_KEY, naming the variable.
 */
async function imageRuntimeStage(clone: FreshClone): Promise<void> {
  const plan = readDockerfile(readFileSync(join(clone.dir, 'Dockerfile'), 'utf8'));
  for (const command of plan.buildCommands) {
    const result = await clone.run(command);
    assert.equal(result.code, 0, `${command}\n${result.output}`);
  }
  const image = join(clone.dir, '.image');
  for (const { from, to } of plan.runtimeCopies) {
    cpSync(join(clone.dir, from), join(image, to === '.' ? basename(from) : to), { recursive: true, verbatimSymlinks: true });
  }
  const port = await freePort();
  const env = {
    ...plan.runtimeEnv,
    STORAGE_DIR: join(image, 'storage'),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL,
    REDIS_KEY_PREFIX: REDIS_PREFIX,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
  const [program, ...args] = plan.runtimeCommand;
  const commandLine = [program, ...args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`)].join(' ');
  assert.equal(plan.runtimeEnv.NODE_ENV, 'production');

  const refused = await clone.run(`cd ${image} && ${commandLine}`, { ...env, ENCRYPTION_KEY: '0'.repeat(64) }, 60_000);
  assert.equal(refused.code, 1, refused.output);
  assert.match(refused.output, /ENCRYPTION_KEY: a key of repeated bytes \(such as all zeros\) is refused when NODE_ENV=production/);

  const server = clone.spawn(commandLine, env, image);
  try {
    await until(
      'the image’s runtime stage to be ready',
      async () => {
        if (server.exitCode !== null) throw new Error(`it exited with ${server.exitCode}:\n${server.output}`);
        return answers(`http://127.0.0.1:${port}/health/ready`);
      },
      60_000,
    );
  } finally {
    await clone.stop(server);
  }
}
