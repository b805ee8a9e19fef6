import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { SecretBox } from '../common/crypto/secret-box.js';
import { AppConfig } from '../config/app-config.js';
import { inTransaction } from '../database/transactions.js';
import { assertWebhookTarget } from '../webhooks/webhook-target.js';
import { newId } from '../common/id.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { Channel, ChannelType, type VoiceCredentials, type WhatsAppCallingSettings, type WhatsAppCredentials } from './channel.entity.js';
import { ChannelConfigInvalid, ChannelNotFound } from './channels.errors.js';
import { ChannelsRepository } from './channels.repository.js';
import type { ChannelConfigDto, UpdateChannelDto } from './dto/channel-config.dto.js';

export type ChannelCapability = 'whatsapp' | 'voice';

/** How long {@link ChannelsService.getRecent} may serve a channel without reading it again. */
export const RECENT_TTL_MS = 5000;

const recentKey = (workspaceId: string, id: string) => `${workspaceId}:${id}`;

function withCapability(channel: Channel | null, id: string, capability?: ChannelCapability): Channel {
  if (!channel) throw ChannelNotFound(id);
  if (capability === 'whatsapp' && !channel.hasWhatsApp) throw ChannelNotFound(id);
  // A voice channel places phone calls, or WhatsApp calls where calling is enabled on the number.
  if (capability === 'voice' && !channel.hasVoice && !channel.hasWhatsAppCalling) throw ChannelNotFound(id);
  return channel;
}

/** What a channel's joining a business portfolio does in its save's transaction; what it returns runs after the commit. */
export type BusinessJoinedListener = (channel: Readonly<Channel>) => Promise<(() => void) | void>;

/** Channels of a workspace. Every lookup is by workspace and id; credentials are sealed at rest. */
@Injectable()
export class ChannelsService {
  private readonly recent = new LRUCache<string, Channel>({ max: 10_000, ttl: RECENT_TTL_MS });
  /** Opened WhatsApp credentials by their sealed form: opening them (AES-GCM, a key object each time) was a seventh of a busy webhook edge's time. */
  private readonly openedWhatsApp = new LRUCache<string, Readonly<WhatsAppCredentials>>({ max: 10_000 });
  /** {@link findRecentForProviderCallback}'s memory, by channel id alone. */
  private readonly recentForCallback = new LRUCache<string, Channel>({ max: 10_000, ttl: RECENT_TTL_MS });
  private readonly businessListeners: BusinessJoinedListener[] = [];

  constructor(
    private readonly channels: ChannelsRepository,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on('channel', (key) => {
      this.recent.delete(key);
      this.recentForCallback.delete(key.slice(key.indexOf(':') + 1));
    });
  }

  /**
   * Registers what else a channel's joining a business portfolio (a new `businessId`) does, in the
   * save's transaction (the governor gives a portfolio without a messaging limit the channel's own):
   * the save and the listeners' writes commit together or not at all. A listener may return what
   * it does once that committed (dropping caches in every process).
   */
  onBusinessJoined(listener: BusinessJoinedListener): void {
    this.businessListeners.push(listener);
  }

  /**
   * Saves the channel and, when the save moves it into a business portfolio, runs the listeners,
   * all in one transaction; then drops the channel from every process's memory and runs what the
   * listeners left for after the commit.
   */
  private async saveJoining(workspaceId: string, channel: Channel, previousBusinessId: string | null): Promise<Channel> {
    const { saved, afterCommit } = await inTransaction(async () => {
      const saved = await this.channels.save(workspaceId, channel);
      const afterCommit: Array<() => void> = [];
      if (saved.businessId && saved.businessId !== previousBusinessId) {
        for (const listener of this.businessListeners) {
          const after = await listener(saved);
          if (after) afterCommit.push(after);
        }
      }
      return { saved, afterCommit };
    });
    this.forgetRecent(workspaceId, saved.id);
    for (const after of afterCommit) after();
    return saved;
  }

  list(workspaceId: string, paging: PagedRequestDto): Promise<PagedResult<Channel>> {
    return this.channels.page(workspaceId, paging.skipCount, paging.maxResultCount);
  }

  /** The channel, or ChannelNotFoundError when it is unknown, another workspace's, or lacks `capability`. */
  async get(workspaceId: string, id: string, capability?: ChannelCapability): Promise<Channel> {
    return withCapability(await this.channels.findById(workspaceId, id), id, capability);
  }

  /**
   * {@link get} for paths that read a channel per message (sends and their workers): served from
   * memory for up to {@link RECENT_TTL_MS}. A change is seen at once by every process (a Redis
   * message drops the entry everywhere); the TTL bounds it if that message is lost. The result is
   * shared: never modify it. In a transaction, a miss is read through it, not through a second
   * pooled connection (transactions holding the whole pool would wait on each other).
   */
  async getRecent(workspaceId: string, id: string, capability?: ChannelCapability): Promise<Readonly<Channel>> {
    const key = recentKey(workspaceId, id);
    let channel = this.recent.get(key);
    if (!channel) {
      channel = withCapability(await this.channels.findById(workspaceId, id), id);
      this.recent.set(key, channel);
    }
    return withCapability(channel, id, capability);
  }

  /** A channel even after it was deleted: calls placed through it still finish. Null when unknown. */
  getIncludingDeleted(workspaceId: string, id: string): Promise<Channel | null> {
    return this.channels.findByIdIncludingDeleted(workspaceId, id);
  }

  /** The channels of these ids, deleted ones included (for records that name the channel they came through). */
  /** With a read in that transaction (no second connection taken from the pool while it is open). */
  getManyIncludingDeleted(workspaceId: string, ids: readonly string[]): Promise<Channel[]> {
    return this.channels.findByIdsIncludingDeleted(workspaceId, ids);
  }

  /** Operators' lookup by id alone: admin routes (admin key) name a channel without its workspace. */
  async findUnscopedForOperator(id: string): Promise<Channel> {
    const channel = await this.channels.findUnscopedForOperator(id);
    if (!channel) throw ChannelNotFound(id);
    return channel;
  }

  /**
   * Lookup by id alone for public provider callbacks (WhatsApp webhooks, Twilio): they carry no
   * token, so the caller must check the provider's signature with this channel's credentials.
   */
  async findUnscopedForProviderCallback(id: string): Promise<Channel> {
    const channel = await this.channels.findUnscopedForProviderCallback(id);
    if (!channel) throw ChannelNotFound(id);
    return channel;
  }

  /**
   * {@link findUnscopedForProviderCallback} served from memory for up to RECENT_TTL_MS (a busy
   * webhook edge would otherwise read the channel for every notification). Unknown ids are read each time.
   */
  async findRecentForProviderCallback(id: string): Promise<Readonly<Channel>> {
    let channel = this.recentForCallback.get(id);
    if (!channel) {
      channel = await this.findUnscopedForProviderCallback(id);
      this.recentForCallback.set(id, channel);
    }
    return channel;
  }

  /**
   * The workspace's WhatsApp channels that a notification of Meta's about an account concerns: those
   * of a business portfolio (`businessId`), of a WhatsApp Business Account (`wabaId`), or with this
   * number (`phoneNumber`, E.164). Never another workspace's.
   */
  async whatsAppChannelsOf(workspaceId: string, where: { businessId?: string; wabaId?: string; phoneNumber?: string }): Promise<Channel[]> {
    const found = await this.channels.find(workspaceId, {
      ...(where.businessId !== undefined && { businessId: where.businessId }),
      ...(where.wabaId !== undefined && { whatsAppWabaId: where.wabaId }),
      ...(where.phoneNumber !== undefined && { phoneNumber: where.phoneNumber }),
    });
    return found.filter((channel) => channel.hasWhatsApp);
  }

  /** Drops a channel from both memories in every process (it changed, or a caller learnt it is out of date). */
  forgetRecent(workspaceId: string, id: string): void {
    this.invalidation.invalidate('channel', recentKey(workspaceId, id));
  }

  /** `id` is chosen by the caller only for the demo channel, whose id the request examples name. */
  async create(workspaceId: string, config: ChannelConfigDto, id: string = newId()): Promise<Channel> {
    const channel = this.channels.create(workspaceId, { id, phoneNumberId: newId(), creatorId: null, lastModifierId: null });
    this.apply(channel, config);
    return this.saveJoining(workspaceId, channel, null);
  }

  /**
   * Operators' route (API.md §14): the numbers the channel's sandbox voice provider answers with an
   * answering machine. A channel whose calls do not go through the sandbox is a 400.
   */
  async setSandboxMachines(id: string, numbers: string[]): Promise<string[]> {
    const channel = await this.findUnscopedForOperator(id);
    if (channel.voiceProvider !== 'sandbox' || !channel.voiceSandbox)
      throw ChannelConfigInvalid(
        `Channel '${id}' does not place calls through the sandbox voice provider, so it simulates no answering machines.`,
        'numbers',
      );
    const machineNumbers = [...new Set(numbers)];
    channel.voiceSandbox = { ...channel.voiceSandbox, machineNumbers };
    await this.channels.save(channel.workspaceId, channel);
    this.forgetRecent(channel.workspaceId, id);
    return machineNumbers;
  }

  /** Replaces the configuration; credentials left out of the request keep their stored values. */
  async update(workspaceId: string, id: string, config: ChannelConfigDto): Promise<Channel> {
    const channel = await this.get(workspaceId, id);
    const previousBusinessId = channel.businessId;
    this.apply(channel, config);
    return this.saveJoining(workspaceId, channel, previousBusinessId);
  }

  /** Changes only the fields given (Update Channel (Partial)); null clears a nullable one. */
  async patch(workspaceId: string, id: string, changes: UpdateChannelDto, actorId: string): Promise<Channel> {
    const channel = await this.get(workspaceId, id);
    for (const member of ['webhookUrl', 'postCallWebhookUrl'] as const) {
      const url = changes[member];
      if (url) assertWebhookTarget(url, member, this.config.webhooks.allowPrivateNetworks);
    }
    if (changes.name !== undefined) channel.name = changes.name;
    if (changes.icon !== undefined) channel.icon = changes.icon;
    if (changes.webhookUrl !== undefined) channel.webhookUrl = changes.webhookUrl;
    if (changes.postCallWebhookUrl !== undefined) channel.postCallWebhookUrl = changes.postCallWebhookUrl;
    const previousBusinessId = channel.businessId;
    if (changes.businessId !== undefined) channel.businessId = changes.businessId;
    channel.lastModifierId = actorId;
    return this.saveJoining(workspaceId, channel, previousBusinessId);
  }

  /** Stores what calling on a WhatsApp channel was set to (the Graph settings were written first by the caller). */
  async setWhatsAppCalling(workspaceId: string, id: string, settings: WhatsAppCallingSettings, actorId: string): Promise<Channel> {
    const channel = await this.get(workspaceId, id, 'whatsapp');
    channel.whatsAppCalling = settings;
    channel.lastModifierId = actorId;
    const saved = await this.channels.save(workspaceId, channel);
    this.forgetRecent(workspaceId, id);
    return saved;
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const channel = await this.get(workspaceId, id);
    await this.channels.softRemove(workspaceId, channel);
    this.forgetRecent(workspaceId, id);
  }

  whatsAppCredentials(channel: Channel): WhatsAppCredentials {
    const sealed = channel.whatsAppCredentialsSealed;
    if (!sealed) return { accessToken: null, appSecret: null, verifyToken: null };
    let opened = this.openedWhatsApp.get(sealed);
    if (!opened) {
      opened = this.secrets.openJson<WhatsAppCredentials>(sealed);
      this.openedWhatsApp.set(sealed, opened);
    }
    // A copy: callers may change what they get (an update merges the new values into it).
    return { ...opened };
  }

  voiceCredentials(channel: Channel): VoiceCredentials {
    return channel.voiceCredentialsSealed ? this.secrets.openJson<VoiceCredentials>(channel.voiceCredentialsSealed) : { authToken: null };
  }

  private apply(channel: Channel, config: ChannelConfigDto): void {
    const wantsWhatsApp = config.type !== ChannelType.PhoneNumber;
    const wantsVoice = config.type !== ChannelType.WhatsApp;
    if (wantsWhatsApp && !config.whatsApp) throw ChannelConfigInvalid('whatsApp is required for a WhatsApp channel.', 'whatsApp');
    if (wantsVoice && !config.voice) throw ChannelConfigInvalid('voice is required for a phone number channel.', 'voice');
    for (const member of ['webhookUrl', 'postCallWebhookUrl'] as const) {
      const url = config[member];
      if (url) assertWebhookTarget(url, member, this.config.webhooks.allowPrivateNetworks);
    }
    Object.assign(channel, {
      name: config.name,
      type: config.type,
      icon: config.icon ?? null,
      phoneNumber: config.phoneNumber,
      webhookUrl: config.webhookUrl ?? null,
      postCallWebhookUrl: config.postCallWebhookUrl ?? null,
      businessId: config.businessId ?? null,
    });
    this.applyWhatsApp(channel, wantsWhatsApp ? config.whatsApp : undefined);
    // A sandbox WhatsApp number simulates its WhatsApp calls (API.md §15): `voice.sandbox` plays the other party.
    const simulatesCalls = config.whatsApp?.provider === 'sandbox' && config.voice?.provider === 'sandbox';
    this.applyVoice(channel, wantsVoice || simulatesCalls ? config.voice : undefined);
  }

  private applyWhatsApp(channel: Channel, config: ChannelConfigDto['whatsApp']): void {
    if (!config) {
      Object.assign(channel, {
        whatsAppProvider: null,
        whatsAppPhoneNumberId: null,
        whatsAppWabaId: null,
        whatsAppCredentialsSealed: null,
      });
      return;
    }
    const stored = this.whatsAppCredentials(channel);
    const credentials: WhatsAppCredentials = {
      accessToken: config.accessToken ?? stored.accessToken,
      appSecret: config.appSecret ?? stored.appSecret,
      verifyToken: config.verifyToken ?? stored.verifyToken,
    };
    if (config.provider === 'cloud-api') {
      for (const field of ['phoneNumberId', 'wabaId'] as const) {
        if (!config[field]) throw ChannelConfigInvalid(`whatsApp.${field} is required for the cloud-api provider.`, `whatsApp.${field}`);
      }
      for (const field of ['accessToken', 'appSecret', 'verifyToken'] as const) {
        if (!credentials[field])
          throw ChannelConfigInvalid(`whatsApp.${field} is required for the cloud-api provider.`, `whatsApp.${field}`);
      }
    }
    Object.assign(channel, {
      whatsAppProvider: config.provider,
      whatsAppPhoneNumberId: config.phoneNumberId ?? null,
      whatsAppWabaId: config.wabaId ?? null,
      whatsAppCredentialsSealed: this.secrets.sealJson(credentials),
    });
  }

  private applyVoice(channel: Channel, config: ChannelConfigDto['voice']): void {
    if (!config) {
      Object.assign(channel, {
        voiceProvider: null,
        voiceAccountSid: null,
        voiceFromNumber: null,
        voiceSandbox: null,
        voiceRecording: null,
        voiceCredentialsSealed: null,
      });
      return;
    }
    if (config.recordingAnnouncementAudioUrl && config.recordingAnnouncementTtsText)
      throw ChannelConfigInvalid(
        'Give at most one of voice.recordingAnnouncementAudioUrl and voice.recordingAnnouncementTtsText.',
        'voice.recordingAnnouncementTtsText',
      );
    const credentials: VoiceCredentials = { authToken: config.authToken ?? this.voiceCredentials(channel).authToken };
    if (config.provider === 'twilio') {
      if (!config.accountSid) throw ChannelConfigInvalid('voice.accountSid is required for the twilio provider.', 'voice.accountSid');
      if (!credentials.authToken) throw ChannelConfigInvalid('voice.authToken is required for the twilio provider.', 'voice.authToken');
    }
    const sandbox = config.sandbox;
    Object.assign(channel, {
      voiceProvider: config.provider,
      voiceAccountSid: config.accountSid ?? null,
      voiceFromNumber: config.fromNumber ?? null,
      voiceSandbox:
        config.provider === 'sandbox'
          ? {
              answer: sandbox?.answer ?? true,
              pressDigits: sandbox?.pressDigits ?? [],
              ringMs: sandbox?.ringMs ?? 1000,
              talkMs: sandbox?.talkMs ?? 1000,
              // Set by the operator's own route, not by the configuration: an update keeps them.
              machineNumbers: channel.voiceSandbox?.machineNumbers ?? [],
            }
          : null,
      voiceRecording: {
        recordCalls: config.recordCalls ?? false,
        announcementAudioUrl: config.recordingAnnouncementAudioUrl ?? null,
        announcementTtsText: config.recordingAnnouncementTtsText ?? null,
      },
      voiceCredentialsSealed: this.secrets.sealJson(credentials),
    });
  }
}
