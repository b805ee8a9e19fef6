import { ApiProperty } from '@nestjs/swagger';
import { IntEnumProperty } from '../../openapi/int-enum.js';

import { regionOf } from '../../common/phone/phone-number.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { Channel, ChannelType } from '../channel.entity.js';

export class ChannelPhoneNumberDto {
  id: string;
  workspaceId: string;
  /** E.164. */
  number: string;
  /** `Active`. */
  phoneNumberStatus: string;
  /** ISO region, e.g. `SA`. */
  region: string | null;
  /** Voice provider, or null for a WhatsApp-only channel. */
  provider: string | null;
}

export class WhatsAppInfoDto {
  phoneNumberId: string | null;
  wabaId: string | null;
  displayPhoneNumber: string;
  provider: string;
}

/** A voice channel's recording defaults (API.md §16). */
export class VoiceRecordingDto {
  /** Calls are recorded unless the request (or its flow) says otherwise. */
  recordCalls: boolean;
  @ApiProperty({ type: String, nullable: true }) announcementAudioUrl: string | null;
  @ApiProperty({ type: String, nullable: true }) announcementTtsText: string | null;
}

export class ChannelDto {
  id: string;
  workspaceId: string;
  name: string;
  @IntEnumProperty(ChannelType, 'ChannelType')
  type: ChannelType;
  icon: string | null;
  phoneNumber: ChannelPhoneNumberDto | null;
  whatsAppInfo: WhatsAppInfoDto | null;
  postCallWebhookUrl: string | null;
  webhookUrl: string | null;
  /** Voice channels: whether calls are recorded by default and what is announced first; null without voice. */
  @ApiProperty({ type: VoiceRecordingDto, nullable: true }) voiceRecording: VoiceRecordingDto | null;
  /**
   * Meta's business portfolio id: channels of this workspace with the same one share one messaging-limit
   * count (unique recipients per rolling 24 h); null: the channel counts on its own.
   */
  @ApiProperty({ type: String, nullable: true, example: '1029384756102938' })
  businessId: string | null;
  /** ISO 8601 without offset (UTC). */
  creationTime: string;
  creatorId: string | null;
  /** ISO 8601 without offset (UTC). */
  lastModificationTime: string | null;
  lastModifierId: string | null;

  static from(channel: Channel): ChannelDto {
    return {
      id: channel.id,
      workspaceId: channel.workspaceId,
      name: channel.name,
      type: channel.type,
      icon: channel.icon,
      phoneNumber: {
        id: channel.phoneNumberId,
        workspaceId: channel.workspaceId,
        number: channel.phoneNumber,
        phoneNumberStatus: 'Active',
        region: regionOf(channel.phoneNumber),
        provider: channel.hasVoice ? channel.voiceProvider : null,
      },
      whatsAppInfo: channel.hasWhatsApp
        ? {
            phoneNumberId: channel.whatsAppPhoneNumberId,
            wabaId: channel.whatsAppWabaId,
            displayPhoneNumber: channel.phoneNumber,
            provider: channel.whatsAppProvider as string,
          }
        : null,
      postCallWebhookUrl: channel.postCallWebhookUrl,
      webhookUrl: channel.webhookUrl,
      voiceRecording: channel.hasVoice
        ? (channel.voiceRecording ?? { recordCalls: false, announcementAudioUrl: null, announcementTtsText: null })
        : null,
      businessId: channel.businessId ?? null,
      creationTime: TimestampFormat.noOffset(channel.creationTime),
      creatorId: channel.creatorId,
      lastModificationTime: TimestampFormat.noOffset(channel.lastModificationTime),
      lastModifierId: channel.lastModifierId,
    };
  }
}
