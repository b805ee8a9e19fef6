import { ConflictError, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

export const DeliveryNotFound = (id: string) => new NotFoundError('Webhooks:DeliveryNotFound', `Webhook delivery '${id}' was not found.`);
export const DeliveryInProgress = (id: string) =>
  new ConflictError(
    'Webhooks:DeliveryInProgress',
    `Webhook delivery '${id}' is still being delivered; redeliver it once it has succeeded or failed.`,
  );
export const InvalidWebhookTarget = (url: string) =>
  new ValidationError('Webhooks:InvalidTarget', `'${url}' is not an absolute http(s) URL.`);
export const PrivateWebhookTarget = (member: string, url: string, range: string) => {
  const message = `${member} '${url}' points at a non-public address (${range}); webhook targets on private networks are not allowed.`;
  return new ValidationError('Webhooks:PrivateTarget', message, { validationErrors: [{ message, members: [member] }] });
};

const invalid = (code: string, member: string, message: string) =>
  new ValidationError(code, message, { validationErrors: [{ message, members: [member] }] });

export const EndpointNotFound = (id: string) => new NotFoundError('Webhooks:EndpointNotFound', `Webhook endpoint '${id}' was not found.`);
export const UnknownEventType = (member: string, type: string) =>
  invalid('Webhooks:UnknownEventType', member, `'${type}' is not an event type; GET /v1/webhook-event-types lists them.`);
export const TooManyHeaders = (max: number) =>
  invalid('Webhooks:TooManyHeaders', 'headers', `An endpoint takes at most ${max} custom headers.`);
export const ForbiddenHeader = (name: string, why: string) =>
  invalid('Webhooks:ForbiddenHeader', 'headers', `Header '${name}' cannot be set on an endpoint: ${why}.`);
