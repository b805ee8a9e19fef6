import type { OperationObject, ParameterObject } from '@nestjs/swagger';
import { errorEnvelope, type ErrorEnvelopeDto } from '../common/errors/error-envelope.js';

/**
 * The codes the error examples show, each with the status and message the service answers it with
 * (as built in the features' `*.errors.ts`, the guards and the error envelope filter).
 */
const CATALOGUE: Record<string, { status: number; message: string }> = {
  'Request:ValidationFailed': { status: 400, message: 'The request is invalid.' },
  'Auth:Unauthorized': { status: 401, message: 'A valid bearer token is required.' },
  'Admin:Unauthorized': { status: 401, message: 'The admin API key is required.' },
  'Auth:InsufficientScope': { status: 403, message: "The token lacks the 'messaging_api' scope." },
  'Request:NotFound': { status: 404, message: 'Not found.' },
  'Campaigns:CampaignNotFound': { status: 404, message: "Campaign '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Channels:ChannelNotFound': { status: 404, message: "Channel '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'ContactProperties:PropertyNotFound': { status: 404, message: "Contact property '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Contacts:ContactNotFound': { status: 404, message: "Contact '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Conversations:ConversationNotFound': { status: 404, message: "Conversation '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'OutboundIvr:FlowNotFound': { status: 404, message: "Outbound IVR flow '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'OutboundIvr:RequestNotFound': { status: 404, message: "Outbound IVR request '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Policy:ScheduledItemNotFound': {
    status: 404,
    message: "No scheduled message or call '0190a1b2-0000-7000-8000-000000000000' was found.",
  },
  'ServiceAccounts:NotFound': { status: 404, message: "Service account '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Tags:TagNotFound': { status: 404, message: "Tag '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Webhooks:DeliveryNotFound': { status: 404, message: "Webhook delivery '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Webhooks:EndpointNotFound': { status: 404, message: "Webhook endpoint '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'Workspaces:WorkspaceNotFound': { status: 404, message: "Workspace '0190a1b2-0000-7000-8000-000000000000' was not found." },
  'WhatsApp:UnknownTemplateName': { status: 404, message: "No template named 'spring_sale' on this channel." },
  'Campaigns:IllegalTransition': { status: 409, message: 'A Completed campaign cannot pause.' },
  'ContactProperties:DuplicateName': { status: 409, message: "A contact property named 'City' already exists." },
  'Contacts:DuplicatePhoneNumber': { status: 409, message: "A contact with phone number '+966550100001' already exists." },
  'Idempotency:InFlight': { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },
  'Tags:DuplicateName': { status: 409, message: "A tag named 'VIP' already exists." },
  'Tags:TagInUse': { status: 409, message: "Tag 'VIP' is on 3 conversations; remove it from them first." },
  'Request:PayloadTooLarge': { status: 413, message: 'Request body is too large.' },
  'Request:UnsupportedMediaType': { status: 415, message: 'Unsupported Media Type: text/plain' },
  'Idempotency:KeyReused': { status: 422, message: 'This Idempotency-Key was used with a different request.' },
  'RateLimit:Exceeded': { status: 429, message: "Rate limit 'requests' of 600 per 60s exceeded. Retry after 12s." },
  'Database:Unavailable': { status: 503, message: 'The database is unavailable; try again later.' },
};

/** The code of a status that needs no knowledge of the route. */
const CODE_OF_STATUS: Record<number, string> = {
  400: 'Request:ValidationFailed',
  403: 'Auth:InsufficientScope',
  409: 'Idempotency:InFlight',
  413: 'Request:PayloadTooLarge',
  415: 'Request:UnsupportedMediaType',
  422: 'Idempotency:KeyReused',
  429: 'RateLimit:Exceeded',
  503: 'Database:Unavailable',
};

/** What a missing id of the path answers, by the parameter's name or, for `{id}`, the segment before it. */
const NOT_FOUND_CODE: Record<string, string> = {
  channelId: 'Channels:ChannelNotFound',
  workspaceId: 'Workspaces:WorkspaceNotFound',
  contactId: 'Contacts:ContactNotFound',
  propertyId: 'ContactProperties:PropertyNotFound',
  conversationId: 'Conversations:ConversationNotFound',
  tagId: 'Tags:TagNotFound',
  campaigns: 'Campaigns:CampaignNotFound',
  'contact-property-definitions': 'ContactProperties:PropertyNotFound',
  contacts: 'Contacts:ContactNotFound',
  'outbound-ivr': 'OutboundIvr:RequestNotFound',
  'outbound-ivr-flows': 'OutboundIvr:FlowNotFound',
  scheduled: 'Policy:ScheduledItemNotFound',
  'service-accounts': 'ServiceAccounts:NotFound',
  tags: 'Tags:TagNotFound',
  'webhook-deliveries': 'Webhooks:DeliveryNotFound',
  'webhook-endpoints': 'Webhooks:EndpointNotFound',
  name: 'WhatsApp:UnknownTemplateName',
};

export interface ErrorExampleContext {
  path: string;
  operation: OperationObject;
  /** The response's description, which may name the code (`Campaigns:IllegalTransition`). */
  description: string;
  admin: boolean;
  /** A channel id in the body or the query, the only id a 404 can then be about. */
  takesChannelId: boolean;
}

/** The error envelope a response of `status` of this operation shows as its example. */
export function errorExample(status: number, context: ErrorExampleContext): ErrorEnvelopeDto {
  const code = codeFor(status, context);
  const entry = CATALOGUE[code];
  if (entry?.status !== status) throw new Error(`OpenAPI: no ${status} example code for ${context.path} (got '${code}').`);
  return errorEnvelope(status, code, entry.message);
}

function codeFor(status: number, context: ErrorExampleContext): string {
  const named = [...context.description.matchAll(/`([A-Z][A-Za-z]+:[A-Za-z]+)`/g)].map((match) => match[1]);
  const own = named.find((code) => CATALOGUE[code]?.status === status);
  if (own) return own;
  if (status === 401) return context.admin ? 'Admin:Unauthorized' : 'Auth:Unauthorized';
  if (status === 404) return notFoundCode(context);
  return CODE_OF_STATUS[status] ?? '';
}

/** The most specific id of the path; else the channel id of the input; else the admin API being off. */
function notFoundCode({ path, operation, admin, takesChannelId }: ErrorExampleContext): string {
  const inPath = ((operation.parameters ?? []) as ParameterObject[]).filter((p) => p.in === 'path').map((p) => p.name);
  const last = inPath.at(-1);
  if (last) {
    const segments = path
      .split('/{id}')[0]
      .split('/')
      .filter((segment) => segment !== 'service-account');
    const key = last === 'id' ? segments.at(-1)! : last;
    return NOT_FOUND_CODE[key] ?? '';
  }
  if (takesChannelId) return 'Channels:ChannelNotFound';
  return admin ? 'Request:NotFound' : '';
}
