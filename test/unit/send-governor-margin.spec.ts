import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startsPerSecond } from '../../src/governor/send-governor.service.js';

describe('the send governor’s transit margin', () => {
  it('lets out 3% under the tier, in whole messages, and keeps nothing back under 34/s', () => {
    assert.deepEqual([1, 5, 33, 34, 80, 300, 1000].map(startsPerSecond), [1, 5, 33, 33, 78, 291, 970]);
  });
});
