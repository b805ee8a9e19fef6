// `npm run webhooks:listen -- --secret whsec_... [--port 4000] [--host 127.0.0.1]`: a small webhook
// receiver for trying the service out. Prints each event it receives and checks its Standard
// Webhooks signature (webhook-id, webhook-timestamp, webhook-signature) with the secret(s) given:
// the workspace's webhook secret (the demo seed prints it) for channel webhooks, or an endpoint's
// `whsec_` secret. Answers 204 when the signature checks out, 401 when it does not (the service then
// retries), and 204 without checking when no secret was given.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({
  options: {
    port: { type: 'string', short: 'p', default: process.env.WEBHOOKS_LISTEN_PORT ?? '4000' },
    host: { type: 'string', default: process.env.WEBHOOKS_LISTEN_HOST ?? '127.0.0.1' },
    secret: {
      type: 'string',
      short: 's',
      multiple: true,
      default: process.env.WEBHOOK_SECRET ? process.env.WEBHOOK_SECRET.split(',') : [],
    },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(`Usage: npm run webhooks:listen -- [--port 4000] [--host 127.0.0.1] [--secret whsec_...]...

  --port, -p    port to listen on (WEBHOOKS_LISTEN_PORT; default 4000)
  --host        address to listen on (WEBHOOKS_LISTEN_HOST; default 127.0.0.1)
  --secret, -s  a signing secret to check signatures with; repeat it for several
                (WEBHOOK_SECRET, comma-separated). Without one, nothing is checked.`);
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, not '${values.port}'`);
  process.exit(2);
}

const notSecret = values.secret.find((secret) => !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret.trim()));
if (notSecret !== undefined) {
  console.error(
    `--secret '${notSecret}' is not a Standard Webhooks secret: whsec_ followed by base64 (the demo seed prints the workspace's)`,
  );
  process.exit(2);
}

let verifiers;
try {
  verifiers = values.secret.map((secret) => new Webhook(secret.trim()));
} catch (err) {
  console.error(`--secret is not a Standard Webhooks secret (whsec_ and base64): ${err.message}`);
  process.exit(2);
}

/** The verified payload, or the reason no secret matched. */
function verify(body, headers) {
  const signed = {
    'webhook-id': headers['webhook-id'],
    'webhook-timestamp': headers['webhook-timestamp'],
    'webhook-signature': headers['webhook-signature'],
  };
  let reason = 'no signature headers';
  for (const verifier of verifiers) {
    try {
      return { ok: true, payload: verifier.verify(body, signed) };
    } catch (err) {
      reason = err.message;
    }
  }
  return { ok: false, reason };
}

/** A one-line gist of a message or call event, then the payload as indented JSON without its null fields. */
function describe(body) {
  let payload;
  try {
    payload = JSON.parse(body);
  } catch {
    return body; // not JSON: shown as it came
  }
  if (payload === null || typeof payload !== 'object') return body;
  const gist = ['direction', 'messageType', 'status', 'result', 'body']
    .filter((key) => payload[key] !== undefined && payload[key] !== null)
    .map((key) => (key === 'body' ? JSON.stringify(payload[key]) : String(payload[key])));
  let nulls = 0;
  const json = JSON.stringify(payload, (_key, value) => (value === null ? (nulls++, undefined) : value), 2);
  return `${gist.length > 0 ? `   ${gist.join(' ')}\n` : ''}${json}${nulls > 0 ? `\n   (${nulls} null fields left out)` : ''}`;
}

let count = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    count += 1;
    const event = req.headers['webhook-event'] ?? '(no webhook-event header)';
    let check = 'signature not checked (no --secret)';
    let status = 204;
    if (verifiers.length > 0) {
      const result = verify(body, req.headers);
      check = result.ok ? 'signature OK' : `signature INVALID: ${result.reason}`;
      status = result.ok ? 204 : 401;
    }
    console.log(`\n#${count} ${new Date().toISOString()} ${req.method} ${req.url} event=${event} id=${req.headers['webhook-id'] ?? '-'}`);
    console.log(`   ${check} → answering ${status}`);
    console.log(describe(body));
    res.writeHead(status).end();
  });
});

server.on('error', (err) => {
  console.error(`Cannot listen on ${values.host}:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, values.host, () => {
  const { port: actual } = server.address();
  const where = `http://${values.host.includes(':') ? `[${values.host}]` : values.host}:${actual}`;
  console.log(
    `Listening for webhooks on ${where}/ (any path), ${verifiers.length > 0 ? `checking signatures with ${verifiers.length} secret(s)` : 'NOT checking signatures (give --secret)'}`,
  );
  console.log('Ctrl+C stops.');
});
process.once('SIGINT', () => server.close(() => process.exit(0)));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
