import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { PhoneNumberField } from '../../common/phone/phone-number.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { WhatsAppUserIdField } from '../../common/phone/whatsapp-user-id.js';
import { INBOUND_KINDS, type InboundKind, type InboundMessage, type SharedContact } from '../inbound/inbound-message.js';

export class SandboxLocationDto {
  @IsNumber() @Min(-90) @Max(90) latitude: number;
  @IsNumber() @Min(-180) @Max(180) longitude: number;
  @IsOptionalNotNull() @IsString() @MaxLength(1000) name?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1000) address?: string;
}

export class SandboxContactNameDto {
  @IsString() @MinLength(1) @MaxLength(200) formattedName: string;
  @IsOptionalNotNull() @IsString() @MaxLength(100) firstName?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(100) lastName?: string;
}

export class SandboxContactPhoneDto {
  @IsString() @MaxLength(40) phone: string;
  /** The WhatsApp id of the number, when it is on WhatsApp. */
  @IsOptionalNotNull() @IsString() @MaxLength(40) waId?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(40) type?: string;
}

export class SandboxContactEmailDto {
  @IsString() @MaxLength(320) email: string;
  @IsOptionalNotNull() @IsString() @MaxLength(40) type?: string;
}

export class SandboxContactOrgDto {
  @IsOptionalNotNull() @IsString() @MaxLength(200) company?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(200) department?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(200) title?: string;
}

/** A shared contact card, as a customer shares one from their phone book. */
export class SandboxSharedContactDto {
  @ValidateNestedObject() @Type(() => SandboxContactNameDto) name: SandboxContactNameDto;
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNestedObject({ each: true })
  @Type(() => SandboxContactPhoneDto)
  phones?: SandboxContactPhoneDto[];
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNestedObject({ each: true })
  @Type(() => SandboxContactEmailDto)
  emails?: SandboxContactEmailDto[];
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => SandboxContactOrgDto) org?: SandboxContactOrgDto;
}

export class SandboxReactionDto {
  /** The message reacted to: its provider message id (`wamid.…`) or our conversation event id. */
  @IsString() @MinLength(1) @MaxLength(200) messageId: string;
  /** One emoji; "" removes the reaction. */
  @IsString() @MaxLength(20) emoji: string;
}

/**
 * Admin: an inbound message as if the provider had delivered it (sandbox channels). The sender is
 * a phone number, a business-scoped user id, or both; the fields that apply depend on `type`.
 */
export class SandboxInboundDto {
  @IsOptionalNotNull() @PhoneNumberField('Sender phone number.') fromNumber?: string;
  @IsOptionalNotNull() @WhatsAppUserIdField('Sender business-scoped user id (BSUID).') fromUserId?: string;
  @IsOptionalNotNull() @WhatsAppUserIdField('Sender parent BSUID.') fromParentUserId?: string;
  /** The sender's WhatsApp username. */
  @IsOptionalNotNull() @IsString() @MaxLength(100) username?: string;
  /** The sender's profile name (`contacts[].profile.name`): names a new contact. */
  @IsOptionalNotNull() @IsString() @MaxLength(200) profileName?: string;
  @ApiProperty({ enum: INBOUND_KINDS })
  @IsIn(INBOUND_KINDS)
  type: InboundKind;
  /** text: the body; button and interactive: the button's title. */
  @IsOptionalNotNull() @IsString() @MaxLength(4096) text?: string;
  /** Quick-reply payload or interactive button id. */
  @IsOptionalNotNull() @IsString() @MaxLength(1000) payload?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(200) replyToMessageId?: string;
  /** image, video, audio, document, sticker: an uploaded file of the channel's workspace (Support API). */
  @IsOptionalNotNull() @IsUUID() mediaId?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
  /** document: the file name the sender gave. */
  @IsOptionalNotNull() @IsString() @MaxLength(240) fileName?: string;
  /** audio: a voice note. */
  @IsOptionalNotNull() @IsBoolean() voice?: boolean;
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => SandboxLocationDto) location?: SandboxLocationDto;
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNestedObject({ each: true })
  @Type(() => SandboxSharedContactDto)
  contacts?: SandboxSharedContactDto[];
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => SandboxReactionDto) reaction?: SandboxReactionDto;

  /** The message as the provider would have delivered it (without its id and time, which the sandbox gives). */
  static toMessage(dto: SandboxInboundDto): Omit<InboundMessage, 'providerMessageId' | 'receivedAt'> {
    const media = dto.mediaId
      ? {
          media: {
            mediaFileId: dto.mediaId,
            caption: dto.caption ?? null,
            fileName: dto.fileName ?? null,
            ...(dto.voice !== undefined ? { voice: dto.voice } : {}),
          },
        }
      : {};
    return {
      type: dto.type,
      fromNumber: dto.fromNumber ?? null,
      fromUserId: dto.fromUserId ?? null,
      fromParentUserId: dto.fromParentUserId ?? null,
      username: dto.username ?? null,
      profileName: dto.profileName ?? null,
      ...(dto.text !== undefined ? { text: dto.text } : {}),
      ...(dto.payload !== undefined ? { payload: dto.payload } : {}),
      ...(dto.replyToMessageId ? { replyToMessageId: dto.replyToMessageId } : {}),
      ...media,
      ...(dto.location
        ? {
            location: {
              latitude: dto.location.latitude,
              longitude: dto.location.longitude,
              name: dto.location.name ?? null,
              address: dto.location.address ?? null,
              url: null,
            },
          }
        : {}),
      ...(dto.contacts ? { contacts: dto.contacts.map(toSharedContact) } : {}),
      ...(dto.reaction ? { reaction: { messageId: dto.reaction.messageId, emoji: dto.reaction.emoji } } : {}),
      ...(dto.type === 'unsupported' ? { raw: { type: 'unsupported', text: dto.text ?? null } } : {}),
    };
  }
}

function toSharedContact(card: SandboxSharedContactDto): SharedContact {
  return {
    name: {
      formattedName: card.name.formattedName,
      firstName: card.name.firstName ?? null,
      lastName: card.name.lastName ?? null,
      middleName: null,
      prefix: null,
      suffix: null,
    },
    phones: (card.phones ?? []).map((p) => ({ phone: p.phone, waId: p.waId ?? null, type: p.type ?? null })),
    emails: (card.emails ?? []).map((e) => ({ email: e.email, type: e.type ?? null })),
    org: card.org ? { company: card.org.company ?? null, department: card.org.department ?? null, title: card.org.title ?? null } : null,
    addresses: [],
    urls: [],
    birthday: null,
  };
}

/** Admin: a user's marketing preference change (Meta's `user_preferences`) as if the provider had delivered it. */
export class SandboxUserPreferenceDto {
  @IsOptionalNotNull() @PhoneNumberField("The user's phone number.") fromNumber?: string;
  @IsOptionalNotNull() @WhatsAppUserIdField("The user's business-scoped user id (BSUID).") fromUserId?: string;
  /** `stop`: the user stopped marketing messages (their contact becomes OptedOut); `resume`: resumed them (OptedIn). */
  @ApiProperty({ enum: ['stop', 'resume'] })
  @IsIn(['stop', 'resume'])
  value: 'stop' | 'resume';
}
