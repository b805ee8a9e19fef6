import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { CurrentWorkspace } from '../../src/auth/principal.js';
import { ValidationError } from '../../src/common/errors/domain-error.js';
import { Idempotent } from '../../src/common/idempotency/idempotent.decorator.js';
import { describeWithApp } from '../support/describe-with-app.js';

class ProbeSendDto {
  @IsString() to: string;
  @IsOptional() @IsInt() delayMs?: number;
  @IsOptional() @IsString() fail?: string;
}

const performed: Array<{ workspaceId: string; to: string }> = [];

/** Stands in for a send operation: counts how often its body really runs. */
@Controller('test-probe')
class ProbeSendController {
  @Post('send')
  @HttpCode(200)
  @Idempotent()
  async send(@CurrentWorkspace() workspaceId: string, @Body() body: ProbeSendDto) {
    if (body.delayMs) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
    if (body.fail) throw new ValidationError('Probe:Failed', body.fail);
    performed.push({ workspaceId, to: body.to });
    return { sent: performed.length, to: body.to };
  }
}

@Module({ controllers: [ProbeSendController] })
class ProbeModule {}

describeWithApp('Idempotency-Key (API.md §1)', { extraModules: [ProbeModule] }, (fx) => {
  it('acts once for the same key and body, and replays the first response', async () => {
    const first = await fx.a.api.post('/test-probe/send', { to: '1' }, { 'Idempotency-Key': 'key-1' });
    assert.equal(first.status, 200);
    const again = await fx.a.api.post('/test-probe/send', { to: '1' }, { 'Idempotency-Key': 'key-1' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(performed.filter((p) => p.to === '1').length, 1);
  });

  it('answers 422 when the key comes back with another body', async () => {
    const res = await fx.a.api.post('/test-probe/send', { to: '2' }, { 'Idempotency-Key': 'key-1' });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'Idempotency:KeyReused');
    assert.equal(performed.filter((p) => p.to === '2').length, 0);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const slow = fx.a.api.post('/test-probe/send', { to: '3', delayMs: 400 }, { 'Idempotency-Key': 'key-slow' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const concurrent = await fx.a.api.post('/test-probe/send', { to: '3', delayMs: 400 }, { 'Idempotency-Key': 'key-slow' });
    assert.equal(concurrent.status, 409);
    assert.equal(concurrent.body.error.code, 'Idempotency:InFlight');
    assert.equal((await slow).status, 200);
    assert.equal(performed.filter((p) => p.to === '3').length, 1);
  });

  it('scopes keys to the workspace', async () => {
    const res = await fx.b.api.post('/test-probe/send', { to: '1' }, { 'Idempotency-Key': 'key-1' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('idempotent-replayed'), null);
    assert.equal(performed.filter((p) => p.to === '1' && p.workspaceId === fx.b.workspaceId).length, 1);
  });

  it('frees the key when the request fails, so a retry may act', async () => {
    const failed = await fx.a.api.post('/test-probe/send', { to: '4', fail: 'not now' }, { 'Idempotency-Key': 'key-4' });
    assert.equal(failed.status, 400);
    const retried = await fx.a.api.post('/test-probe/send', { to: '4', fail: 'still not' }, { 'Idempotency-Key': 'key-4' });
    assert.equal(retried.status, 400, 'a different body is accepted after a failure');
    const ok = await fx.a.api.post('/test-probe/send', { to: '4' }, { 'Idempotency-Key': 'key-4' });
    assert.equal(ok.status, 200);
  });

  it('refuses a key longer than 255 characters', async () => {
    const res = await fx.a.api.post('/test-probe/send', { to: '5' }, { 'Idempotency-Key': 'k'.repeat(256) });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'Idempotency:InvalidKey');
  });

  it('acts every time without a key', async () => {
    const before = performed.length;
    await fx.a.api.post('/test-probe/send', { to: '6' });
    await fx.a.api.post('/test-probe/send', { to: '6' });
    assert.equal(performed.length, before + 2);
  });
});
