import { after, before, describe } from 'node:test';
import type { CreateAppOptions } from '../../src/create-app.js';
import { createWorkspace, type WorkspaceFixture } from './fixtures.js';
import { startTestApp, type TestApp } from './test-app.js';

/** What a suite of {@link describeWithApp} reads once its `before` hook has run. */
export interface AppFixture {
  /** The booted app (its own database and Redis prefix). */
  t: TestApp;
  /** Two workspaces, A and B, each with a service account and a token (cross-workspace checks need both). */
  a: WorkspaceFixture;
  b: WorkspaceFixture;
}

/** A server the suite starts beside the app (a fake provider, a webhook receiver). */
export interface Peer {
  close(): unknown;
}

export interface DescribeWithAppOptions<P extends Record<string, Peer>> extends CreateAppOptions {
  /** Servers started before the app boots, in order, and closed after it; the fixture carries them by name. */
  peers?: { [K in keyof P]: () => Promise<P[K]> };
  /** Environment of the app (configuration variables), given the started peers when it names their URLs. */
  env?: Record<string, string> | ((peers: P) => Record<string, string>);
}

/**
 * `describe(title, …)` around the real app: its peers started and the app booted before the suite's
 * tests with workspaces A and B made; the app closed (database dropped, Redis keys deleted) and the
 * peers closed after them. The fixture's fields are filled in by the `before` hook, so read them
 * inside hooks and tests, not while the suite is being declared.
 */
export function describeWithApp<P extends Record<string, Peer> = Record<never, Peer>>(
  title: string,
  options: DescribeWithAppOptions<P>,
  body: (fx: AppFixture & P) => void,
): void {
  void describe(title, () => {
    const fx = {} as AppFixture & P;
    const started: Peer[] = [];
    before(async () => {
      const { env = {}, peers = {} as DescribeWithAppOptions<P>['peers'] & object, ...appOptions } = options;
      for (const [name, start] of Object.entries(peers) as Array<[keyof P, () => Promise<Peer>]>) {
        const peer = await start();
        started.push(peer);
        (fx as Record<keyof P, Peer>)[name] = peer;
      }
      fx.t = await startTestApp(typeof env === 'function' ? env(fx) : env, appOptions);
      fx.a = await createWorkspace(fx.t, 'A');
      fx.b = await createWorkspace(fx.t, 'B');
    });
    after(async () => {
      await fx.t?.close();
      for (const peer of started.reverse()) await peer.close();
    });
    body(fx);
  });
}
