import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readNotification, readPricing } from '../../src/whatsapp/inbound/cloud-webhook.js';

describe('pricing of a status (Meta per-message pricing)', () => {
  it('keeps model, type and category, and charges only regular messages', () => {
    assert.deepEqual(readPricing({ pricing_model: 'PMP', type: 'regular', category: 'marketing_lite' }), {
      model: 'PMP',
      type: 'regular',
      category: 'marketing_lite',
      billable: true,
    });
    assert.deepEqual(readPricing({ pricing_model: 'PMP', type: 'free_entry_point', category: 'utility', billable: false }), {
      model: 'PMP',
      type: 'free_entry_point',
      category: 'utility',
      billable: false,
    });
    assert.equal(readPricing({ pricing_model: 'PMP', type: 'free_customer_service', category: 'service' }).billable, false);
  });

  it('reads the per-conversation model of before July 2025 (billable, no type)', () => {
    assert.deepEqual(readPricing({ pricing_model: 'CBP', billable: true, category: 'authentication_international' }), {
      model: 'CBP',
      type: null,
      category: 'authentication_international',
      billable: true,
    });
  });

  it('puts the pricing on the status update, and none when the status carries none', () => {
    const notification = (pricing?: unknown) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                statuses: [
                  {
                    id: 'wamid.1',
                    status: 'delivered',
                    timestamp: '1795870000',
                    recipient_id: '14155550100',
                    ...(pricing ? { pricing } : {}),
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const [priced] = readNotification(notification({ pricing_model: 'PMP', type: 'regular', category: 'Marketing' })).statuses;
    assert.deepEqual(priced.pricing, { model: 'PMP', type: 'regular', category: 'marketing', billable: true });
    assert.equal(priced.at, new Date(1795870000 * 1000).toISOString());
    const [bare] = readNotification(notification()).statuses;
    assert.equal(bare.pricing, undefined);
  });
});
