import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, createWorkspace, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { HttpClient } from '../support/http-client.js';
import { quietAroundNow } from '../support/quiet-hours.js';

const IVR = {
  destinationNumber: '966501234567',
  audioFileUrl: 'https://media.example.com/ask.wav',
  options: [{ digit: '1', description: 'Yes' }],
  webhookUrl: 'https://hooks.example.com/ivr',
};

/**
 * Two processes of one deployment: this test's app, and a second API process started from the
 * production build with the same database, Redis prefix and secrets. A change made through one is
 * seen by the other at once, although both keep the record in memory for seconds (channels and send
 * policies 5 s, service-account status 30 s): the Redis message drops it, the TTL is only the safety net.
 */
let second: ChildProcess | undefined;

/** Stops the second process before the app drops the database it is connected to. */
async function stopSecond(): Promise<void> {
  if (!second || second.exitCode !== null) return;
  const exited = new Promise((resolve) => second!.once('exit', resolve));
  second.kill('SIGTERM');
  await exited;
}

describeWithApp(
  'Caches shared by processes: a change through one process is seen at once by another',
  { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }, beforeClose: stopSecond },
  (fx) => {
    let ws: WorkspaceFixture;
    let secondApi: HttpClient;
    let output = '';

    before(async () => {
      ws = await createWorkspace(fx.t, 'Shared caches');
      const port = await freePort();
      // startTestApp left its configuration (database, Redis prefix, secrets) in process.env.
      second = spawn(process.execPath, ['dist/src/main.js'], {
        env: { ...process.env, PORT: String(port), APP_ROLE: 'api', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      second.stdout!.on('data', (chunk) => (output += chunk));
      second.stderr!.on('data', (chunk) => (output += chunk));
      const url = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${url}/health/ready`).catch(() => undefined))?.status === 200, 30_000, 'the second process');
      secondApi = new HttpClient(url).withToken(ws.token);
    });

    it('a channel changed through one process is read anew by the other at once (Create Outbound IVR)', async () => {
      const channel = await createChannel(fx.t, ws.workspaceId, { phoneNumber: '+14155550440' });
      const first = await secondApi.post('/v1/outbound-ivr', { ...IVR, channelId: channel.id });
      assert.equal(first.status, 200, `${first.text} ${output}`);
      // Through this process: the channel loses its voice line.
      const changed = await fx.t.admin.put(`/admin/v1/workspaces/${ws.workspaceId}/channels/${channel.id}`, {
        name: 'Main line',
        type: 2,
        phoneNumber: '+14155550440',
        whatsApp: { provider: 'sandbox' },
      });
      assert.equal(changed.status, 200, changed.text);
      // Well within the 5 s the second process would otherwise keep the old channel.
      const refused = await waitFor(
        async () => {
          const res = await secondApi.post('/v1/outbound-ivr', { ...IVR, channelId: channel.id });
          return res.status === 404 ? res : undefined;
        },
        1_000,
        'the second process to see the channel without voice',
      );
      assert.equal(refused.body.error.code, 'Channels:ChannelNotFound');
    });

    it('a send policy changed through one process is applied by the other at once (quiet hours hold a call)', async () => {
      const channel = await createChannel(fx.t, ws.workspaceId, { phoneNumber: '+14155550441' });
      const before = await secondApi.post('/v1/outbound-ivr', { ...IVR, channelId: channel.id });
      assert.equal(before.status, 200, before.text);
      assert.equal(before.body.scheduledFor, null, 'no quiet hours yet: the second process has read the policy');
      // Through this process: quiet hours around now for calls, in the zone of the number (+966: Riyadh).
      const { quietHours, endsAt } = quietAroundNow('Asia/Riyadh', ['Calls']);
      const put = await new HttpClient(fx.t.baseUrl).withToken(ws.token).put('/v1/send-policy', { quietHours });
      assert.equal(put.status, 200, put.text);
      // Well within the 5 s the second process would otherwise keep the old policy.
      const held = await waitFor(
        async () => {
          const res = await secondApi.post('/v1/outbound-ivr', { ...IVR, channelId: channel.id });
          assert.equal(res.status, 200, res.text);
          return res.body.scheduledFor ? res : undefined;
        },
        1_000,
        'the second process to apply the quiet hours',
      );
      assert.equal(new Date(held.body.scheduledFor).getTime(), endsAt.getTime());
    });

    it('a service account revoked through one process is refused by the other at once', async () => {
      const other = await createWorkspace(fx.t, 'Revoked');
      const otherApi = secondApi.withToken(other.token);
      assert.equal((await otherApi.get('/v1/channels/service-account')).status, 200, 'the second process has the account as active');
      const revoked = await fx.t.admin.delete(`/admin/v1/workspaces/${other.workspaceId}/service-accounts/${other.serviceAccountId}`);
      assert.ok(revoked.status === 200 || revoked.status === 204, revoked.text);
      // The second process would otherwise trust its answer for 30 s.
      const refused = await waitFor(
        async () => {
          const res = await otherApi.get('/v1/channels/service-account');
          return res.status === 401 ? res : undefined;
        },
        1_000,
        'the second process to refuse the revoked token',
      );
      assert.equal(refused.status, 401);
    });
  },
);
