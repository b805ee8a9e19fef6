import type { Channel, VoiceRecordingSettings } from '../channels/channel.entity.js';
import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { ChannelsService } from '../channels/channels.service.js';
import { newId } from '../common/id.js';
import { AppConfig } from '../config/app-config.js';
import { assertWebhookTarget } from '../webhooks/webhook-target.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { Outbox, type OutboxEntry } from '../queue/outbox.service.js';
import { OutboundIvrFlowsService } from '../outbound-ivr-flows/outbound-ivr-flows.service.js';
import { JobName } from '../queue/queue-names.js';
import { CallTracker } from './call-tracker.service.js';
import { IVR_DEFAULTS, type CreateOutboundIvrRequest } from './dto/create-outbound-ivr.dto.js';
import { toOutboundIvrRequest, type ListOutboundIvrQueryDto } from './dto/outbound-ivr-request.dto.js';
import { PendingResponse } from '../common/idempotency/stored-response.js';
import { CallType, isFinished, OutboundIvrAudioType, OutboundIvrResult, OutboundIvrStatus } from './ivr-enums.js';
import { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { OutboundIvrRequestsRepository } from './outbound-ivr-requests.repository.js';
import {
  IvrAlreadyFinished,
  IvrConnectedCallsLimit,
  IvrInvalidRequest,
  IvrPhoneNumberRequired,
  IvrRecipientOptedOut,
  OutboundIvrNotFound,
} from './outbound-ivr.errors.js';
import { ContactIdentity } from '../contacts/contact-identity.service.js';
import { ContactConsent } from '../contacts/contact-consent.service.js';
import { isWhatsAppUserId } from '../common/phone/whatsapp-user-id.js';
import type { Contact } from '../contacts/contact.entity.js';
import { SendScheduler } from '../send-policy/send-scheduler.service.js';
import { WhatsAppCallPermissions } from '../contacts/whatsapp-call-permissions.service.js';
import { inTransaction } from '../database/transactions.js';
import { ScheduledItemNotCancellable } from '../send-policy/send-policy.errors.js';

/** Outbound IVR requests: created with their outbox job in one statement, then followed by the worker. */
@Injectable()
export class OutboundIvrService {
  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly channels: ChannelsService,
    private readonly tracker: CallTracker,
    private readonly outbox: Outbox,
    private readonly flows: OutboundIvrFlowsService,
    private readonly config: AppConfig,
    private readonly identities: ContactIdentity,
    private readonly consents: ContactConsent,
    private readonly scheduler: SendScheduler,
    private readonly permissions: WhatsAppCallPermissions,
  ) {}

  /**
   * A second request with the same externalId returns the first record and places no call: the
   * insert yields to the unique (workspace, externalId) index, so racing requests agree too.
   */
  async create(principal: Principal, input: CreateOutboundIvrRequest): Promise<OutboundIvrRequestEntity> {
    checkWhatToPlay(input);
    checkMachineDetection(input);
    checkRecordingAnnouncement(input);
    assertWebhookTarget(input.webhookUrl, 'webhookUrl', this.config.webhooks.allowPrivateNetworks);
    const workspaceId = principal.workspaceId;
    // A repeated request answers its first record before any limit is asked: a limit reached since
    // (Meta's connected calls, its permission requests) never turns a repeat into a 429.
    if (input.externalId) {
      const first = await this.requests.findByExternalId(workspaceId, input.externalId);
      if (first) return first;
    }
    const channel = await this.channels.getRecent(workspaceId, input.channelId, 'voice');
    // A BSUID calls its contact's number; over WhatsApp (a channel without a phone line), a user who
    // shares none is called by the BSUID itself.
    const user = isWhatsAppUserId(input.destinationNumber)
      ? await this.whatsAppUser(workspaceId, input.destinationNumber, channel.callsOverWhatsApp)
      : null;
    if (user) input = { ...input, destinationNumber: user.destination };
    // API.md §13: no call to a contact opted out of calls (one indexed read of the number's contact).
    const consent = user?.contact ? user.contact.callConsent : await this.consents.ofPhone(workspaceId, input.destinationNumber, 'calls');
    if (consent === 'OptedOut') throw IvrRecipientOptedOut(input.destinationNumber);
    const flow = input.flowId ? await this.flows.getCurrentVersion(workspaceId, input.flowId) : null;
    const flowVersion = flow?.version ?? null;
    // A flow's machine detection applies unless the request sets its own.
    if (flow && input.machineDetection === undefined && flow.definition.machineDetection)
      input = {
        ...input,
        machineDetection: flow.definition.machineDetection,
        voicemailAudioFileUrl: flow.definition.voicemailAudioFileUrl ?? null,
        voicemailTtsText: flow.definition.voicemailTtsText ?? null,
      };
    input = withRecording(input, flow?.definition.record ?? null, channel.voiceRecording);
    // API.md §13: at `sendAt`, and not inside the contact's quiet hours when they cover calls.
    const dueAt = await this.scheduler.dueAt(workspaceId, {
      scope: 'Calls',
      recipient: user?.contact
        ? { contactId: user.contact.id, phoneNumber: user.contact.phoneNumber }
        : { phoneNumber: isWhatsAppUserId(input.destinationNumber) ? null : input.destinationNumber },
      sendAt: input.sendAt,
    });
    const record = this.newRecord(workspaceId, input, flowVersion, dueAt);
    // The request and its job in one statement; the job is pushed to the queue once it is written, delayed until the call is due.
    // With an Idempotency-Key, the statement stores the answer too (API.md §1), so a crash after it never lets a retry call again.
    // Built when the record is final (a call waiting for permission says so in it).
    const response = () => PendingResponse.of(workspaceId, () => toOutboundIvrRequest(record));
    const place = { jobName: JobName.PlaceIvrCall, workspaceId, runAt: dueAt, payload: { requestId: record.id } } as const;
    // A WhatsApp user who has not given this number permission to call is asked first (API.md §15);
    // the sandbox's simulated users permit every call.
    const overMeta = channel.callsOverWhatsApp && channel.whatsAppProvider === 'cloud-api';
    if (overMeta && (await this.mayNeedPermission(workspaceId, channel.id, input.destinationNumber))) {
      const timeoutMinutes = input.permissionTimeoutMinutes ?? IVR_DEFAULTS.permissionTimeoutMinutes;
      const inserted = await this.insertOverWhatsApp(principal, record, place, timeoutMinutes, response);
      return inserted ? record : this.requests.findByExternalIdOrFail(workspaceId, record.externalId!); // the externalId is taken
    }
    const job = await this.requests.insertIgnoringWithJob(workspaceId, record, place, response());
    if (!job) return this.requests.findByExternalIdOrFail(workspaceId, record.externalId!); // the externalId is taken
    this.outbox.pushCommitted([job]);
    return record;
  }

  /**
   * Whether a WhatsApp call to `userNumber` may have to wait for the user's permission: false for a
   * user who has granted it (the call is placed at once); a user already called as often as Meta
   * allows today is a 429 (Meta would refuse the call).
   */
  private async mayNeedPermission(workspaceId: string, channelId: string, userNumber: string): Promise<boolean> {
    const since = new Date(Date.now() - 86_400_000);
    const connected = await this.requests.countConnectedSince(workspaceId, channelId, userNumber, since);
    if (connected >= CONNECTED_CALLS_PER_DAY) throw IvrConnectedCallsLimit(userNumber);
    return (await this.permissions.state(workspaceId, channelId, userNumber)).status !== 'Granted';
  }

  /**
   * A WhatsApp call to a user who had not granted permission, decided and recorded in one
   * transaction holding the lock of the user's permission row, so concurrent requests for the user
   * take turns and agree (API.md §15):
   * - granted meanwhile: the call is placed (`place`);
   * - a request is out already (another call waits for it): the call joins it and waits with its
   *   own deadline, nothing more is sent, and the user's answer places (or ends) every waiting call;
   * - else a request is taken within Meta's limits (past them a 429, and nothing is written) and
   *   the job that sends it is queued with the call.
   * The user's contact (the request message goes to it) is made here, by the caller, only with the
   * call. False when the externalId is taken (a repeated request: nothing is written or asked).
   */
  private async insertOverWhatsApp(
    principal: Principal,
    record: OutboundIvrRequestEntity,
    place: OutboxEntry<JobName.PlaceIvrCall>,
    timeoutMinutes: number,
    response: () => PendingResponse | undefined,
  ): Promise<boolean> {
    const { workspaceId, channelId, destinationNumber: user } = record;
    return inTransaction(async () => {
      const permission = await this.permissions.lockedState(workspaceId, channelId, user);
      if (permission.status === 'Granted') {
        const job = await this.requests.insertIgnoringWithJob(workspaceId, record, place, response());
        if (job) this.outbox.pushOnCommit([job]);
        return !!job;
      }
      record.awaitingPermission = true;
      record.permissionDeadline = new Date(Date.now() + timeoutMinutes * 60_000);
      const payload = { requestId: record.id };
      const endWait = { jobName: JobName.EndCallPermissionWait, workspaceId, runAt: record.permissionDeadline, payload } as const;
      const joins = await this.requests.hasWaitingForPermission(workspaceId, channelId, user);
      const first = joins ? endWait : ({ jobName: JobName.RequestCallPermission, workspaceId, payload } as const);
      const job = await this.requests.insertIgnoringWithJob(workspaceId, record, first, response());
      if (!job) return false;
      this.outbox.pushOnCommit([job]);
      if (!joins) {
        // Past Meta's limits this throws, and the transaction undoes the call. Taken as of the call's
        // creation, which names it if the request cannot be sent (see permissionRequestUnsent).
        await this.permissions.takeRequest(workspaceId, channelId, user, record.creationTime);
        await this.outbox.enqueue([endWait]);
      }
      await this.userContact(principal, user);
      return true;
    });
  }

  /** Ends a call waiting for the user's permission with NoPermission (no request could be sent, or no answer came in time). */
  async endPermissionWait(workspaceId: string, id: string, why: string): Promise<void> {
    await this.tracker.endPermissionWait(
      { id, workspaceId },
      { kind: 'ended', at: new Date(), ending: 'failed', hangupCause: 'NoPermission', errorMessage: why },
    );
  }

  /**
   * Whether a call of this number to this user still waits for the user's permission: the request
   * a call asked for is sent for them even when that call no longer waits (cancelled meanwhile).
   */
  hasWaitingForPermission(workspaceId: string, channelId: string, userNumber: string): Promise<boolean> {
    return this.requests.hasWaitingForPermission(workspaceId, channelId, userNumber);
  }

  /**
   * The call permission request the call `requestId` asked for could not be sent (refused when it
   * was accepted, or by Meta for good), or was not needed any more: Meta did not count it, so it is
   * given back to the limits on asking, and every call still waiting for it (the calls that joined
   * it too) ends Failed, NoPermission, saying why. Under the lock of the user's permission row, so a
   * call created meanwhile either ended here or, after, asks again.
   */
  async permissionRequestUnsent(workspaceId: string, requestId: string, why: string): Promise<void> {
    const asker = await this.requests.findById(workspaceId, requestId);
    if (!asker) return;
    const { channelId, destinationNumber } = asker;
    await inTransaction(async () => {
      await this.permissions.giveBackRequest(workspaceId, channelId, destinationNumber, asker.creationTime);
      const waiting = await this.requests.find(workspaceId, { channelId, destinationNumber, awaitingPermission: true });
      for (const call of waiting) await this.endPermissionWait(workspaceId, call.id, why);
    });
  }

  /**
   * A WhatsApp user answered this number's call permission request (or granted it by calling):
   * the calls waiting for it are placed now, or end Failed, PermissionDenied. Returns how many.
   */
  async permissionAnswered(workspaceId: string, channelId: string, userNumber: string, granted: boolean): Promise<number> {
    const waiting = await this.requests.find(workspaceId, { channelId, destinationNumber: userNumber, awaitingPermission: true });
    for (const call of waiting) {
      const ref = { id: call.id, workspaceId };
      if (granted) await this.tracker.permissionGranted(ref);
      else
        await this.tracker.endPermissionWait(ref, {
          kind: 'ended',
          at: new Date(),
          ending: 'failed',
          result: OutboundIvrResult.PermissionDenied,
          hangupCause: 'PermissionDenied',
          errorMessage: 'The WhatsApp user declined the call permission request.',
        });
    }
    return waiting.length;
  }

  /**
   * A WhatsApp user's call to a number with a flow for it (API.md §15): recorded as an inbound IVR
   * call running the flow's current version, with the job that answers it, in one statement. A
   * `connect` webhook Meta delivers again (the same call id) records nothing more: null. The
   * sandbox's simulated calls have no SDP offer.
   */
  async recordWhatsAppUserCall(
    channel: Channel,
    call: { callId: string; caller: string; offerSdp: string | null; flowId: string },
  ): Promise<string | null> {
    const { workspaceId } = channel;
    const flow = await this.flows.getCurrentVersion(workspaceId, call.flowId);
    const input = withRecording(
      { channelId: channel.id, destinationNumber: call.caller, flowId: call.flowId, webhookUrl: null },
      flow.definition.record ?? null,
      channel.voiceRecording,
    );
    const record = Object.assign(this.newRecord(workspaceId, input, flow.version, null), {
      direction: CallType.Inbound,
      callId: call.callId,
      offerSdp: call.offerSdp,
    });
    const job = await this.requests.insertIgnoringWithJob(workspaceId, record, {
      jobName: JobName.PlaceIvrCall,
      workspaceId,
      payload: { requestId: record.id },
    });
    if (!job) return null;
    this.outbox.pushCommitted([job]);
    return record.id;
  }

  /**
   * What {@link create} checks before anything is written, for a request still without its
   * destination (a campaign's `ivr`, checked when the campaign is created): what to play, the
   * webhook target, the voice channel and the flow.
   */
  async check(workspaceId: string, input: Omit<CreateOutboundIvrRequest, 'destinationNumber'>): Promise<void> {
    checkWhatToPlay(input);
    checkMachineDetection(input);
    checkRecordingAnnouncement(input);
    assertWebhookTarget(input.webhookUrl, 'webhookUrl', this.config.webhooks.allowPrivateNetworks);
    await this.channels.getRecent(workspaceId, input.channelId, 'voice');
    if (input.flowId) await this.flows.getCurrentVersion(workspaceId, input.flowId);
  }

  /**
   * Whether calls on the channel reach a WhatsApp user known only by their BSUID (a destination
   * {@link create} takes as it is): over WhatsApp they do; a phone line needs a number.
   */
  async callsWhatsAppUserIds(workspaceId: string, channelId: string): Promise<boolean> {
    return (await this.channels.getRecent(workspaceId, channelId, 'voice')).callsOverWhatsApp;
  }

  get(workspaceId: string, id: string): Promise<OutboundIvrRequestEntity> {
    return this.find(workspaceId, id);
  }

  list(workspaceId: string, query: ListOutboundIvrQueryDto): Promise<PagedResult<OutboundIvrRequestEntity>> {
    return this.requests.page(workspaceId, { status: query.status, externalId: query.externalId }, query.skipCount, query.maxResultCount);
  }

  /** Cancels a call not yet finished; a call the provider knows of is hung up there (the tracker queues it). */
  async cancel(workspaceId: string, id: string): Promise<OutboundIvrRequestEntity> {
    const ref = { id, workspaceId };
    const before = await this.find(workspaceId, id);
    if (isFinished(before.status)) throw IvrAlreadyFinished(id);
    await this.tracker.progress(ref, { kind: 'ended', at: new Date(), ending: 'canceled' });
    const after = await this.find(workspaceId, id);
    if (after.status !== OutboundIvrStatus.Cancelled) throw IvrAlreadyFinished(id);
    return after;
  }

  /**
   * DELETE /v1/scheduled: cancels a scheduled call before it is placed; it ends 8 Cancelled (its
   * job then finds it finished and places nothing). False when the workspace has no call with this
   * id; a call that was not scheduled, is being placed or has ended is a 409.
   */
  async cancelScheduled(workspaceId: string, id: string): Promise<boolean> {
    const call = await this.requests.findById(workspaceId, id);
    if (!call) return false;
    if (call.status === OutboundIvrStatus.Cancelled) throw ScheduledItemNotCancellable(id, 'it was cancelled already');
    if (!call.scheduledFor) throw ScheduledItemNotCancellable(id, 'it was not scheduled');
    if (call.status !== OutboundIvrStatus.Pending || call.placementStartedAt)
      throw ScheduledItemNotCancellable(id, 'the call has been placed already');
    await this.tracker.progress({ id, workspaceId }, { kind: 'ended', at: new Date(), ending: 'canceled' });
    return true;
  }

  /**
   * Whom a destination given as a WhatsApp user id (BSUID) calls: the number of its contact when it
   * has one (API.md §7.1: the phone is used when known); over WhatsApp (API.md §15), else the BSUID
   * itself, with or without a contact. A phone line needs a number: none is a 400 saying why.
   */
  private async whatsAppUser(
    workspaceId: string,
    whatsAppUserId: string,
    overWhatsApp: boolean,
  ): Promise<{ destination: string; contact: Contact | null }> {
    const contact = await this.identities.findByWhatsAppUserId(workspaceId, whatsAppUserId);
    if (contact?.phoneNumber) return { destination: contact.phoneNumber, contact };
    if (overWhatsApp) return { destination: whatsAppUserId, contact };
    if (!contact)
      throw IvrPhoneNumberRequired(
        `Calls need a phone number: no contact has WhatsApp user id '${whatsAppUserId}', so there is no number to call.`,
      );
    throw IvrPhoneNumberRequired(
      `Calls need a phone number: contact '${contact.name}' (WhatsApp user id '${whatsAppUserId}') has none; WhatsApp did not share it.`,
    );
  }

  /** The contact of a call's user, by number or (a WhatsApp user who shares none) by BSUID, made when there is none. */
  private userContact(principal: Principal, destination: string): Promise<Contact> {
    return isWhatsAppUserId(destination)
      ? this.identities.findOrCreateByWhatsAppUserId(principal, destination)
      : this.identities.findOrCreateByPhone(principal, destination);
  }

  private async find(workspaceId: string, id: string): Promise<OutboundIvrRequestEntity> {
    const record = await this.requests.findById(workspaceId, id);
    if (!record) throw OutboundIvrNotFound(id);
    return record;
  }

  private newRecord(workspaceId: string, input: IvrInput, flowVersion: number | null, scheduledFor: Date | null): OutboundIvrRequestEntity {
    const ttsText = input.ttsText ?? null;
    return Object.assign(new OutboundIvrRequestEntity(), {
      id: newId(),
      workspaceId,
      channelId: input.channelId,
      externalId: input.externalId ?? null,
      destinationNumber: input.destinationNumber,
      audioFileUrl: input.audioFileUrl ?? null,
      ttsText,
      ttsVoice: input.ttsVoice ?? IVR_DEFAULTS.ttsVoice,
      audioType: input.flowId ? null : ttsText ? OutboundIvrAudioType.TextToSpeech : OutboundIvrAudioType.AudioFile,
      welcomeMessageFileUrl: input.welcomeMessageFileUrl ?? null,
      successMessageFileUrl: input.successMessageFileUrl ?? null,
      failedMessageFileUrl: input.failedMessageFileUrl ?? null,
      options: (input.options ?? []).map((o) => ({
        digit: o.digit,
        description: o.description,
        responseMessageFileUrl: o.responseMessageFileUrl ?? null,
      })),
      webhookUrl: input.webhookUrl,
      direction: CallType.Outbound,
      offerSdp: null,
      maxAudioRetries: input.maxAudioRetries ?? IVR_DEFAULTS.maxAudioRetries,
      inputTimeoutMs: input.inputTimeoutMs ?? IVR_DEFAULTS.inputTimeoutMs,
      digitTimeoutMs: input.digitTimeoutMs ?? IVR_DEFAULTS.digitTimeoutMs,
      flowId: input.flowId ?? null,
      flowVersion,
      awaitingPermission: false,
      permissionDeadline: null,
      permissionTemplate: input.permissionTemplate
        ? { name: input.permissionTemplate.name, language: input.permissionTemplate.language }
        : null,
      permissionRequestText: input.permissionRequestText ?? null,
      analysisStatus: null,
      analysisError: null,
      transcript: null,
      summary: null,
      sentiment: null,
      evaluationCriteriaResult: null,
      analysedAt: null,
      machineDetection: input.machineDetection ?? 'Off',
      voicemailAudioFileUrl: input.voicemailAudioFileUrl ?? null,
      voicemailTtsText: input.voicemailTtsText ?? null,
      answeredBy: null,
      record: input.record ?? false,
      recordingAnnouncementAudioUrl: input.recordingAnnouncementAudioUrl ?? null,
      recordingAnnouncementTtsText: input.recordingAnnouncementTtsText ?? null,
      recordingSid: null,
      recordingMediaId: null,
      recordingUrl: null,
      recordingDurationMs: null,
      recordedAt: null,
      recordingError: null,
      callWebhookWaiting: false,
      status: OutboundIvrStatus.Pending,
      result: OutboundIvrResult.None,
      pressedDigit: null,
      initiatedAt: null,
      ringingAt: null,
      answeredAt: null,
      completedAt: null,
      callDurationSeconds: null,
      callId: null,
      errorMessage: null,
      hangupCause: null,
      answers: [],
      placementStartedAt: null,
      script: null,
      dialog: null,
      scheduledFor,
      creationTime: new Date(),
    });
  }
}

/** Meta's limit on connected calls from one number to one WhatsApp user in 24 h (its calling limits). */
const CONNECTED_CALLS_PER_DAY = 100;

/** What a record is made of: a request, or a WhatsApp user's call (no outcome webhook). */
type IvrInput = Omit<CreateOutboundIvrRequest, 'webhookUrl'> & { webhookUrl: string | null };

/** Exactly one of audioFileUrl and ttsText with 1-12 options, or a flowId with none of them. */
function checkWhatToPlay(input: Omit<CreateOutboundIvrRequest, 'destinationNumber'>): void {
  if (input.flowId) {
    const extra = (['audioFileUrl', 'ttsText', 'options'] as const).filter((field) => input[field] != null);
    if (extra.length > 0) throw IvrInvalidRequest(`A request with flowId plays the flow; leave out ${extra.join(', ')}.`, [...extra]);
    return;
  }
  const given = (['audioFileUrl', 'ttsText'] as const).filter((field) => input[field] != null);
  if (given.length !== 1)
    throw IvrInvalidRequest('Give exactly one of audioFileUrl and ttsText (or a flowId).', ['audioFileUrl', 'ttsText']);
  if (!input.options || input.options.length === 0) throw IvrInvalidRequest('options must have 1 to 12 entries.', ['options']);
}

/** LeaveMessage needs exactly one voicemail prompt; the voicemail fields mean nothing without it. */
function checkMachineDetection(input: Omit<CreateOutboundIvrRequest, 'destinationNumber'>): void {
  const voicemail = (['voicemailAudioFileUrl', 'voicemailTtsText'] as const).filter((field) => input[field] != null);
  if (input.machineDetection === 'LeaveMessage') {
    if (voicemail.length !== 1)
      throw IvrInvalidRequest(
        'machineDetection LeaveMessage needs exactly one of voicemailAudioFileUrl and voicemailTtsText: what to leave after the beep.',
        ['voicemailAudioFileUrl', 'voicemailTtsText'],
      );
    return;
  }
  if (voicemail.length > 0)
    throw IvrInvalidRequest(
      `${voicemail.join(' and ')} ${voicemail.length > 1 ? 'are' : 'is'} played only with machineDetection LeaveMessage.`,
      [...voicemail],
    );
}

/** The announcement is one audio file or one text, not both. */
function checkRecordingAnnouncement(input: Omit<CreateOutboundIvrRequest, 'destinationNumber'>): void {
  if (input.recordingAnnouncementAudioUrl != null && input.recordingAnnouncementTtsText != null)
    throw IvrInvalidRequest('Give at most one of recordingAnnouncementAudioUrl and recordingAnnouncementTtsText.', [
      'recordingAnnouncementAudioUrl',
      'recordingAnnouncementTtsText',
    ]);
}

/**
 * Whether the call is recorded: the request's `record`, else its flow's, else the channel's
 * `recordCalls`. A recorded call without an announcement of its own gets the channel's; an
 * unrecorded one keeps none.
 */
function withRecording<T extends IvrInput>(input: T, flowRecord: boolean | null, channel: VoiceRecordingSettings | null): T {
  const record = input.record ?? flowRecord ?? channel?.recordCalls ?? false;
  if (!record) return { ...input, record, recordingAnnouncementAudioUrl: null, recordingAnnouncementTtsText: null };
  const own = input.recordingAnnouncementAudioUrl != null || input.recordingAnnouncementTtsText != null;
  return {
    ...input,
    record,
    recordingAnnouncementAudioUrl: own ? (input.recordingAnnouncementAudioUrl ?? null) : (channel?.announcementAudioUrl ?? null),
    recordingAnnouncementTtsText: own ? (input.recordingAnnouncementTtsText ?? null) : (channel?.announcementTtsText ?? null),
  };
}
