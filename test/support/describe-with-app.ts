import { after, before, describe } from 'node:test';
import type { CreateAppOptions } from '../../src/create-app.js';
import { createWorkspace, type WorkspaceFixture } from './fixtures.js';
import { startTestApp, type TestApp } from './test-app.js';

/** What a suite of {@link describeWithApp} reads once its `before` hook has run. */
export interface AppFixture {
  /** The booted app (its own database and Redis prefix). */
  t: TestApp;
  /** Two workspaces, A and B, each with a service account and a token (cross-workspace checks need both); unset past `workspaces`. */
  a: WorkspaceFixture;
  b: WorkspaceFixture;
}

/** What the suite starts beside the app and closes after it: a fake provider, a webhook receiver, a private Redis, a temp directory. */
export interface Peer {
  close(): unknown;
}

export interface DescribeWithAppOptions<P extends Record<string, Peer>> extends CreateAppOptions {
  /**
   * Peers (servers, a private Redis, a temp directory) started before the app boots, in order, and closed
   * after it in reverse; the fixture carries them by name.
   */
  peers?: { [K in keyof P]: () => Promise<P[K]> };
  /**
   * Environment of the app (configuration variables), given the started peers when it names their URLs;
   * awaited when it must first find something out (a free port for PORT and PUBLIC_BASE_URL).
   */
  env?: Record<string, string> | ((peers: P) => Record<string, string> | Promise<Record<string, string>>);
  /**
   * How many of the workspaces A and B to make before the tests (2 by default). A suite whose first
   * requests must be the app's first (a tight rate limit on token requests) or whose app has no admin
   * API says 0, or 1 for A only.
   */
  workspaces?: 0 | 1 | 2;
  /**
   * Runs after the tests, before the app closes: puts back what the app needs to close cleanly (a
   * private Redis a test stopped), or stops what must not outlive it (a worker process).
   */
  beforeClose?: (fx: AppFixture & P) => unknown;
}

/**
 * `describe(title, …)` around the real app: its peers started and the app booted before the suite's
 * tests with workspaces A and B made (see `workspaces`); the app closed (database dropped, Redis keys deleted) and the
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
    const { env = {}, peers = {} as DescribeWithAppOptions<P>['peers'] & object, workspaces = 2, beforeClose, ...appOptions } = options;
    before(async () => {
      for (const [name, start] of Object.entries(peers) as Array<[keyof P, () => Promise<Peer>]>) {
        const peer = await start();
        started.push(peer);
        (fx as Record<keyof P, Peer>)[name] = peer;
      }
      fx.t = await startTestApp(typeof env === 'function' ? await env(fx) : env, appOptions);
      if (workspaces >= 1) fx.a = await createWorkspace(fx.t, 'A');
      if (workspaces >= 2) fx.b = await createWorkspace(fx.t, 'B');
    });
    after(async () => {
      if (fx.t) await beforeClose?.(fx);
      await fx.t?.close();
      for (const peer of started.reverse()) await peer.close();
    });
    body(fx);
  });
}
