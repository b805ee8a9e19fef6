import type { CallHours, WhatsAppCallingSettings } from '../../channels/channel.entity.js';
import { errorText, type CloudError } from '../../whatsapp/inbound/cloud-webhook.js';
import { graphRequest, GraphUnreachableError, type GraphResponse } from '../../whatsapp/providers/graph-http.js';
import { CallingSettingsRefused, GraphUnavailable } from './whatsapp-calls.errors.js';

/** Where and with what token a number's Calling API requests go. */
export interface GraphNumber {
  graphUrl: string;
  phoneNumberId: string;
  accessToken: string | null;
}

const status = (on: boolean) => (on ? 'ENABLED' : 'DISABLED');

/** The `calling` object of Meta's Settings API (`POST /{phone-number-id}/settings`). */
export function graphCallingSettings(settings: WhatsAppCallingSettings): Record<string, unknown> {
  return {
    status: status(settings.enabled),
    // Meta replaces the whole call_hours object with what is sent: hours turned off are sent as DISABLED.
    call_hours: settings.callHours ? graphCallHours(settings.callHours) : { status: 'DISABLED' },
    callback_permission_status: status(settings.callbackPermission),
  };
}

function graphCallHours(hours: CallHours): Record<string, unknown> {
  return {
    status: 'ENABLED',
    timezone_id: hours.timezoneId,
    weekly_operating_hours: hours.weeklyOperatingHours.map((day) => ({
      day_of_week: day.dayOfWeek,
      open_time: day.openTime,
      close_time: day.closeTime,
    })),
    holiday_schedule: hours.holidaySchedule.map((day) => ({ date: day.date, start_time: day.startTime, end_time: day.endTime })),
  };
}

/** Sets the number's calling settings; Meta answers `{ success: true }`. A refusal is a 400 with Meta's words, an outage a 503. */
export async function setCallingSettings(number: GraphNumber, settings: WhatsAppCallingSettings): Promise<void> {
  const response = await reach(() =>
    graphRequest('POST', `${number.graphUrl}/${number.phoneNumberId}/settings`, number.accessToken, {
      calling: graphCallingSettings(settings),
    }),
  );
  if (response.status === 200 && (response.body as { success?: unknown }).success === true) return;
  const error = (response.body as { error?: CloudError }).error;
  const words = errorText(error) ?? `HTTP ${response.status}`;
  if (response.status >= 500 || response.status === 429) throw GraphUnavailable(`Meta could not set the calling settings now: ${words}`);
  throw CallingSettingsRefused(`Meta refused the calling settings${error?.code ? ` (error ${error.code})` : ''}: ${words}`);
}

async function reach(request: () => Promise<GraphResponse>): Promise<GraphResponse> {
  try {
    return await request();
  } catch (err) {
    if (err instanceof GraphUnreachableError) throw GraphUnavailable(err.message);
    throw err;
  }
}

/** Meta refused a call action; `code` is Meta's error code (138006: no call permission from the user). */
export class CallActionRefused extends Error {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/**
 * `POST /{phone-number-id}/calls` with `action: connect` and the SDP offer: Meta answers
 * `{ calls: [{ id }] }`, the WhatsApp call id the `calls` webhooks then name. `to` is a phone number
 * (digits) or a BSUID (`recipient`).
 */
export async function connectCall(number: GraphNumber, to: string, sdpOffer: string, tracking: string): Promise<string> {
  const addressee = to.startsWith('+') || /^\d+$/.test(to) ? { to: to.replace(/^\+/, '') } : { recipient: to };
  const body = await callAction(number, {
    ...addressee,
    action: 'connect',
    session: { sdp_type: 'offer', sdp: sdpOffer },
    biz_opaque_callback_data: tracking,
  });
  const id = (body as { calls?: Array<{ id?: unknown }> }).calls?.[0]?.id;
  if (typeof id !== 'string' || !id) throw new CallActionRefused('Meta accepted the call without a call id', null);
  return id;
}

/** `POST /{phone-number-id}/calls` with `action: reject`: declines a call from a user before it is answered. */
export async function rejectCall(number: GraphNumber, callId: string): Promise<void> {
  await callAction(number, { call_id: callId, action: 'reject' });
}

/**
 * A user's call answered: `pre_accept` with our SDP answer lets the media path come up while the
 * user still sees the call ringing, then `accept` (the same answer) connects it. Meta answers each
 * with `{ success: true }`.
 */
export async function preAcceptCall(number: GraphNumber, callId: string, sdpAnswer: string): Promise<void> {
  await callAction(number, { call_id: callId, action: 'pre_accept', session: { sdp_type: 'answer', sdp: sdpAnswer } });
}

export async function acceptCall(number: GraphNumber, callId: string, sdpAnswer: string, tracking: string): Promise<void> {
  await callAction(number, {
    call_id: callId,
    action: 'accept',
    session: { sdp_type: 'answer', sdp: sdpAnswer },
    biz_opaque_callback_data: tracking,
  });
}

/** `POST /{phone-number-id}/calls` with `action: terminate`. */
export async function terminateCall(number: GraphNumber, callId: string): Promise<void> {
  await callAction(number, { call_id: callId, action: 'terminate' });
}

async function callAction(number: GraphNumber, request: Record<string, unknown>): Promise<unknown> {
  const response = await reach(() =>
    graphRequest('POST', `${number.graphUrl}/${number.phoneNumberId}/calls`, number.accessToken, {
      messaging_product: 'whatsapp',
      ...request,
    }),
  );
  if (response.status >= 200 && response.status < 300) return response.body;
  const error = (response.body as { error?: CloudError }).error;
  throw new CallActionRefused(
    `Meta refused the call (${error?.code ?? `HTTP ${response.status}`}): ${errorText(error) ?? ''}`.trim(),
    error?.code ?? null,
  );
}
