import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WiringAtDebugLogger } from '../../src/logging/wiring-at-debug.logger.js';

describe('Nest wiring lines', () => {
  it('go to debug; every other context keeps its level', () => {
    const calls: Array<[string, unknown, unknown[]]> = [];
    const record =
      (level: string) =>
      (message: unknown, ...params: unknown[]) =>
        calls.push([level, message, params]);
    const logger = new WiringAtDebugLogger({ log: record('log'), debug: record('debug'), warn: record('warn'), error: record('error') });
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/v1/contacts, GET} route', 'RouterExplorer');
    logger.log('ContactsController {/v1/contacts}:', 'RoutesResolver');
    logger.log('Seeded demo workspace', 'DemoSeed');
    logger.warn('Careful', 'RouterExplorer');
    assert.deepEqual(calls, [
      ['debug', 'AppModule dependencies initialized', ['InstanceLoader']],
      ['debug', 'Mapped {/v1/contacts, GET} route', ['RouterExplorer']],
      ['debug', 'ContactsController {/v1/contacts}:', ['RoutesResolver']],
      ['log', 'Seeded demo workspace', ['DemoSeed']],
      ['warn', 'Careful', ['RouterExplorer']],
    ]);
  });
});
