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

export interface DescribeWithAppOptions extends CreateAppOptions {
  /** Environment of the app (configuration variables). */
  env?: Record<string, string>;
}

/**
 * `describe(title, …)` around the real app: booted before the suite's tests with workspaces A and B
 * made, closed (database dropped, Redis keys deleted) after them. The fixture's fields are filled in
 * by the `before` hook, so read them inside hooks and tests, not while the suite is being declared.
 */
export function describeWithApp(title: string, options: DescribeWithAppOptions, body: (fx: AppFixture) => void): void {
  void describe(title, () => {
    const fx = {} as AppFixture;
    before(async () => {
      const { env = {}, ...appOptions } = options;
      fx.t = await startTestApp(env, appOptions);
      fx.a = await createWorkspace(fx.t, 'A');
      fx.b = await createWorkspace(fx.t, 'B');
    });
    after(() => fx.t?.close());
    body(fx);
  });
}
