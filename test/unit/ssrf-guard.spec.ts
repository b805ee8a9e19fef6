import assert from 'node:assert/strict';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addressRange, checkLiteralHost, ForbiddenAddressError, guardedLookup, type Resolver } from '../../src/webhooks/ssrf-guard.js';

/** A resolver answering fixed addresses for any name, as a DNS server with those records would. */
const resolvesTo =
  (...addresses: LookupAddress[]): Resolver =>
  (_hostname, _options, callback) =>
    process.nextTick(callback, null, addresses);

/** Calls a lookup function and collects what it hands the socket. */
function lookUp(lookup: ReturnType<typeof guardedLookup>, hostname: string, all: boolean) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
    lookup(hostname, { all }, (err, address, family) => resolve({ err, address, family })),
  );
}

describe('SSRF guard: the lookup sockets use', () => {
  it('answers the array form ({ all: true }) that net.connect asks for with autoSelectFamily', async () => {
    const got = await lookUp(guardedLookup(true), 'localhost', true);
    assert.equal(got.err, null);
    assert.deepEqual(got.address, [{ address: '127.0.0.1', family: 4 }]);
  });

  it('answers the classic form (one address and its family)', async () => {
    const got = await lookUp(guardedLookup(true), 'localhost', false);
    assert.equal(got.err, null);
    assert.equal(got.address, '127.0.0.1');
    assert.equal(got.family, 4);
  });

  it('refuses a name resolving to loopback in both forms when private networks are not allowed', async () => {
    for (const all of [true, false]) {
      const got = await lookUp(guardedLookup(false), 'localhost', all);
      assert.ok(got.err instanceof ForbiddenAddressError, `all: ${all}`);
      assert.match(got.err.message, /Refused: localhost resolves to 127\.0\.0\.1 \(loopback\)/);
    }
  });

  it('refuses a name when any one of its addresses is non-public', async () => {
    const mixed = resolvesTo({ address: '93.184.215.14', family: 4 }, { address: 'fd00::5', family: 6 });
    const got = await lookUp(guardedLookup(false, mixed), 'hooks.example.com', true);
    assert.ok(got.err instanceof ForbiddenAddressError);
    assert.equal(got.err.address, 'fd00::5');
    assert.equal(got.err.range, 'uniqueLocal');
  });

  it('passes every address of a public name through, in order', async () => {
    const addresses = [
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.215.14', family: 4 },
    ];
    const got = await lookUp(guardedLookup(false, resolvesTo(...addresses)), 'hooks.example.com', true);
    assert.equal(got.err, null);
    assert.deepEqual(got.address, addresses);
    const one = await lookUp(guardedLookup(false, resolvesTo(...addresses)), 'hooks.example.com', false);
    assert.deepEqual([one.address, one.family], ['2606:4700::1111', 6]);
  });

  it('passes resolution errors on, and treats an empty answer as ENOTFOUND', async () => {
    const got = await lookUp(guardedLookup(true), 'no-such-host.invalid', true);
    assert.equal(got.err?.code, 'ENOTFOUND');
    const empty = await lookUp(guardedLookup(true, resolvesTo()), 'hooks.example.com', false);
    assert.equal(empty.err?.code, 'ENOTFOUND');
  });
});

describe('SSRF guard: literal addresses', () => {
  const refused = [
    '[::1]',
    '[::]',
    new URL('http://[::127.0.0.1]/').hostname, // IPv4-compatible, deprecated (RFC 4291): URL parsing makes it [::7f00:1]
    '[::a00:1]',
    '[fec0::1]', // site-local, deprecated
    '[64:ff9b::7f00:1]', // NAT64 of 127.0.0.1
    '[2002:7f00:1::]', // 6to4 of 127.0.0.1
    '[2001::1]', // Teredo
    '[2001:db8::1]', // documentation
    '[fc00::1]',
    '[fe80::1]',
    '[::ffff:10.0.0.1]',
    '127.0.0.1',
    '10.1.2.3',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
  ];
  for (const host of refused) {
    it(`refuses ${host}`, () => {
      assert.throws(() => checkLiteralHost(host, false), ForbiddenAddressError);
      assert.doesNotThrow(() => checkLiteralHost(host, true), 'allowed when private networks are');
    });
  }

  it('accepts public unicast addresses and leaves names to the lookup', () => {
    for (const host of ['93.184.215.14', '[2606:4700::1111]', 'hooks.example.com'])
      assert.doesNotThrow(() => checkLiteralHost(host, false));
    assert.equal(addressRange('::7f00:1'), 'nonGlobal');
  });
});

describe('SSRF guard: real sockets through an agent', () => {
  let v4: http.Server;
  let v6: http.Server;
  const listen = async (host: string) => {
    const server = http.createServer((req, res) => res.end(`hello from ${req.socket.localAddress}`));
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return server;
  };
  const get = (url: string, lookup: ReturnType<typeof guardedLookup>) =>
    new Promise<string>((resolve, reject) => {
      const agent = new http.Agent({ lookup });
      http
        .get(url, { agent }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(body));
        })
        .on('error', reject)
        .on('close', () => agent.destroy());
    });

  before(async () => {
    v4 = await listen('127.0.0.1');
    v6 = await listen('::1');
  });
  after(() => {
    v4.close();
    v6.close();
  });

  it('connects to a host name over IPv4 loopback when private networks are allowed', async () => {
    assert.equal(await get(`http://localhost:${(v4.address() as AddressInfo).port}/`, guardedLookup(true)), 'hello from 127.0.0.1');
  });

  it('connects to a host name over IPv6 loopback when private networks are allowed', async () => {
    const lookup = guardedLookup(true, resolvesTo({ address: '::1', family: 6 }));
    assert.equal(await get(`http://hooks.test:${(v6.address() as AddressInfo).port}/`, lookup), 'hello from ::1');
  });

  it('never opens the socket when they are not', async () => {
    for (const [url, lookup] of [
      [`http://localhost:${(v4.address() as AddressInfo).port}/`, guardedLookup(false)],
      [`http://hooks.test:${(v6.address() as AddressInfo).port}/`, guardedLookup(false, resolvesTo({ address: '::1', family: 6 }))],
    ] as const) {
      await assert.rejects(
        get(url, lookup),
        (err: Error) => err instanceof ForbiddenAddressError || (err.cause as Error) instanceof ForbiddenAddressError,
      );
    }
  });
});
