// A TCP relay in front of PostgreSQL that counts the statements its clients run: every statement a
// client runs reaches the server as a simple-query message ('Q') or an extended-query Execute ('E'),
// so counting those two frontend message types counts statements (pg_stat_statements is not
// loaded on the shared server). A 'Q' holding several statements counts once; node-postgres and
// TypeORM send one per message. GET on the control port answers {"statements": n, "byText": {...}}:
// byText counts them by the first 120 characters of their text (a 'Q''s own, or for an Execute the
// statement its connection parsed last, as node-postgres parses each unnamed statement before it runs).
// Run as a child process: PORT (listen), CONTROL_PORT, PG_HOST / PG_PORT (upstream).
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const QUERY = 0x51; // 'Q'
const EXECUTE = 0x45; // 'E'
const PARSE = 0x50; // 'P'
const KEY_CHARS = 120;

let statements = 0;
const byText = new Map<string, number>();

const keyOf = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, KEY_CHARS);
const counted = (key: string) => {
  statements++;
  byText.set(key, (byText.get(key) ?? 0) + 1);
};

/** Reads the frontend stream of one connection message by message; only the headers are looked at, and the text of 'Q' and 'P'. */
function frontendCounter(): (chunk: Buffer) => void {
  let startup = true; // the first messages have no type byte
  let pending: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  let skip = 0; // bytes of the current message's body still to pass
  let body: { type: number; parts: Buffer[] } | undefined; // a 'Q' or 'P' whose body is being read
  let lastParsed = '';
  const bodyRead = (type: number, bytes: Buffer) => {
    if (type === QUERY) return counted(keyOf(bytes.toString('utf8', 0, Math.max(0, bytes.indexOf(0)))));
    // Parse: the statement's name, then its text, each NUL-terminated.
    const nameEnd = bytes.indexOf(0);
    lastParsed = keyOf(bytes.toString('utf8', nameEnd + 1, Math.max(nameEnd + 1, bytes.indexOf(0, nameEnd + 1))));
  };
  return (chunk) => {
    const data: Buffer<ArrayBufferLike> = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    pending = Buffer.alloc(0);
    let at = 0;
    while (at < data.length) {
      if (skip > 0) {
        const step = Math.min(skip, data.length - at);
        body?.parts.push(data.subarray(at, at + step));
        skip -= step;
        at += step;
        if (skip === 0 && body) {
          bodyRead(body.type, Buffer.concat(body.parts));
          body = undefined;
        }
        continue;
      }
      const headerBytes = startup ? 8 : 5;
      if (data.length - at < headerBytes) {
        pending = data.subarray(at);
        break;
      }
      if (startup) {
        const length = data.readInt32BE(at);
        const code = data.readInt32BE(at + 4);
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
        skip = length;
      } else {
        const type = data[at];
        if (type === EXECUTE) counted(lastParsed);
        if (type === QUERY || type === PARSE) body = { type, parts: [] };
        skip = 1 + data.readInt32BE(at + 1);
        // The header's five bytes are not the body.
        if (body) {
          at += 5;
          skip -= 5;
          if (skip === 0) {
            bodyRead(body.type, Buffer.alloc(0));
            body = undefined;
          }
          continue;
        }
      }
    }
  };
}

const relay = createServer((client) => {
  const server = connect(Number(process.env.PG_PORT ?? 5432), process.env.PG_HOST ?? '127.0.0.1');
  client.setNoDelay(true);
  server.setNoDelay(true);
  const count = frontendCounter();
  client.on('data', (chunk: Buffer) => {
    count(chunk);
    if (!server.write(chunk)) client.pause();
  });
  server.on('drain', () => client.resume());
  server.on('data', (chunk: Buffer) => {
    if (!client.write(chunk)) server.pause();
  });
  client.on('drain', () => server.resume());
  const close = () => {
    client.destroy();
    server.destroy();
  };
  client.on('close', close);
  server.on('close', close);
  client.on('error', close);
  server.on('error', close);
});
relay.listen(Number(process.env.PORT), '127.0.0.1');

createHttpServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ statements, byText: Object.fromEntries(byText) }));
}).listen(Number(process.env.CONTROL_PORT), '127.0.0.1');
