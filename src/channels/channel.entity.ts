import { Column, DeleteDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { AuditedEntity } from '../database/audited.entity.js';
import { ChannelType } from './channel-type.js';

export { ChannelType };

export type WhatsAppProviderName = 'sandbox' | 'cloud-api';
export type VoiceProviderName = 'sandbox' | 'twilio';

/** Behaviour of the sandbox voice provider (API.md §3). */
export interface VoiceSandboxSettings {
  answer: boolean | 'busy';
  pressDigits: string[];
  ringMs: number;
  talkMs: number;
  /** Numbers answered by a simulated answering machine (PUT /admin/v1/channels/{id}/sandbox/machines); E.164. */
  machineNumbers?: string[];
}

/** A channel's defaults for recording its calls (API.md §16). */
export interface VoiceRecordingSettings {
  recordCalls: boolean;
  announcementAudioUrl: string | null;
  announcementTtsText: string | null;
}

/** One day's opening of the calling hours, as Meta takes it (`HHMM`, 24 h, in the hours' time zone). */
export interface CallHoursDay {
  dayOfWeek: 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';
  openTime: string;
  closeTime: string;
}

/** A closed stretch of one day (`YYYY-MM-DD`, `HHMM`–`HHMM`). */
export interface CallHoliday {
  date: string;
  startTime: string;
  endTime: string;
}

export interface CallHours {
  timezoneId: string;
  weeklyOperatingHours: CallHoursDay[];
  holidaySchedule: CallHoliday[];
}

/** Calling on a WhatsApp number (API.md §15): what the number's Graph calling settings were set to, and the flows that answer users' calls. */
export interface WhatsAppCallingSettings {
  enabled: boolean;
  /** Null: calls are taken at any hour. */
  callHours: CallHours | null;
  /** Whether a user who calls is offered to let the business call back (Meta's `callback_permission_status`). */
  callbackPermission: boolean;
  inboundFlowId: string | null;
  afterHoursFlowId: string | null;
  /**
   * The approved template with a call permission request button sent to a user outside the 24 h
   * service window when a call's request names none (API.md §15). Absent in settings stored before it: none.
   */
  permissionTemplate?: { name: string; language: string } | null;
}

/** Credentials, write-only: stored sealed, never returned. */
export interface WhatsAppCredentials {
  accessToken: string | null;
  appSecret: string | null;
  verifyToken: string | null;
}
export interface VoiceCredentials {
  authToken: string | null;
}

@Entity('channels')
@Index(['workspaceId', 'creationTime'])
export class Channel extends AuditedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'smallint' }) type: ChannelType;
  @Column({ type: 'varchar', length: 2048, nullable: true }) icon: string | null;
  /** Id of the channel's phone number object in ChannelDto.phoneNumber. */
  @Column('uuid') phoneNumberId: string;
  @Column({ type: 'varchar', length: 20 }) phoneNumber: string;
  @Column({ type: 'varchar', length: 2048, nullable: true }) webhookUrl: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) postCallWebhookUrl: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true }) whatsAppProvider: WhatsAppProviderName | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) whatsAppPhoneNumberId: string | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) whatsAppWabaId: string | null;
  @Column({ type: 'text', nullable: true }) whatsAppCredentialsSealed: string | null;
  /**
   * Meta's business portfolio the number belongs to (API.md §14): channels of one workspace with
   * the same businessId share one messaging-limit count. Scoped to the workspace: the same id in
   * another workspace is another count.
   */
  @Column({ type: 'varchar', length: 100, nullable: true }) businessId: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true }) voiceProvider: VoiceProviderName | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) voiceAccountSid: string | null;
  @Column({ type: 'varchar', length: 20, nullable: true }) voiceFromNumber: string | null;
  @Column({ type: 'jsonb', nullable: true }) voiceSandbox: VoiceSandboxSettings | null;
  /** Whether calls are recorded unless the request says otherwise, and the announcement played first. */
  @Column({ type: 'jsonb', nullable: true }) voiceRecording: VoiceRecordingSettings | null;
  @Column({ type: 'text', nullable: true }) voiceCredentialsSealed: string | null;

  /** Null until calling was first set on the number (PUT /v1/channels/{id}/calling). */
  @Column({ type: 'jsonb', nullable: true }) whatsAppCalling: WhatsAppCallingSettings | null;

  @DeleteDateColumn({ type: 'timestamptz' }) deletionTime: Date | null;

  get hasWhatsApp(): boolean {
    return this.whatsAppProvider !== null && this.type !== ChannelType.PhoneNumber;
  }

  get hasVoice(): boolean {
    return this.voiceProvider !== null && this.type !== ChannelType.WhatsApp;
  }

  /** A WhatsApp number with calling enabled: outbound IVR runs over WhatsApp calls (API.md §15); a sandbox number simulates them. */
  get hasWhatsAppCalling(): boolean {
    return this.hasWhatsApp && this.whatsAppCalling?.enabled === true;
  }

  /**
   * Its calls go over WhatsApp (calling enabled, no phone line): a WhatsApp user who shares no
   * number is called by their BSUID (API.md §15). A channel with a phone line places phone calls.
   */
  get callsOverWhatsApp(): boolean {
    return !this.hasVoice && this.hasWhatsAppCalling;
  }
}
