import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isReactionEmoji } from '../../src/whatsapp/dto/whatsapp-validators.js';
import { FreeForm, markReadRequest, withProviderMediaId, withStoredFile } from '../../src/whatsapp/outbound/free-form-message.js';

describe('reaction emoji', () => {
  it('takes one emoji of any kind, or "" to remove the reaction', () => {
    for (const emoji of ['👍', '👍🏽', '❤️', '❤', '👨‍👩‍👧', '🇸🇦', '1️⃣', '']) assert.ok(isReactionEmoji(emoji), emoji);
  });
  it('refuses text, two emoji and anything not a string', () => {
    for (const value of ['ok', '👍👍', '👍 ', ':)', '#', 1, null, undefined]) assert.equal(isReactionEmoji(value), false, String(value));
  });
});

describe('media by uploaded file', () => {
  const file = { id: 'f1', url: 'https://app.example.com/media/k/Invoice.pdf', fileName: 'Invoice.pdf', contentType: 'application/pdf' };

  it('builds the body without a link, names the file for the worker, and puts the provider id first', () => {
    const message = FreeForm.file({ channelId: 'c', toNumber: '+14155550100', mediaId: 'f1', caption: 'March' });
    assert.deepEqual(message.media, { fileId: 'f1', mediaType: 'document' });
    assert.deepEqual(message.request.document, { caption: 'March' });
    const ready = withStoredFile(message, file);
    assert.deepEqual(ready.request.document, { caption: 'March', filename: 'Invoice.pdf' });
    assert.deepEqual(ready.attachment, { mediaId: 'f1', mediaUrl: file.url, mimeType: 'application/pdf', fileName: 'Invoice.pdf' });
    assert.deepEqual(withProviderMediaId(ready.request, '123').document, { id: '123', caption: 'March', filename: 'Invoice.pdf' });
  });

  it('keeps a given file name and previews the stored one when there is no caption', () => {
    const named = withStoredFile(FreeForm.file({ channelId: 'c', toNumber: '+14155550100', mediaId: 'f1', fileName: 'march.pdf' }), file);
    assert.equal((named.request.document as { filename: string }).filename, 'march.pdf');
    const unnamed = withStoredFile(FreeForm.file({ channelId: 'c', toNumber: '+14155550100', mediaId: 'f1' }), file);
    assert.equal(unnamed.preview, 'Invoice.pdf');
  });

  it('sends by link when no mediaId is given', () => {
    const message = FreeForm.image({ channelId: 'c', toNumber: '+14155550100', imageUrl: 'https://img.example.com/a.png' });
    assert.equal(message.media, undefined);
    assert.deepEqual(message.request.image, { link: 'https://img.example.com/a.png' });
  });
});

describe('Mark As Read', () => {
  it('adds the typing indicator only when asked', () => {
    assert.deepEqual(markReadRequest('wamid.1', undefined), { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.1' });
    assert.deepEqual(markReadRequest('wamid.1', false), { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.1' });
    assert.deepEqual(markReadRequest('wamid.1', true), {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: 'wamid.1',
      typing_indicator: { type: 'text' },
    });
  });
});
