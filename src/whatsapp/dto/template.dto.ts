import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { TemplateComponentDefinitionDto } from './template-definition.dto.js';
import { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { headerExampleUrl, placeholderCount } from '../templates/template-message.js';
import type { SandboxMessage } from '../outbound/sandbox-message.entity.js';
import type { TemplateComponent, WhatsAppTemplate } from '../templates/whatsapp-template.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

export class ListTemplatesQueryDto extends PagedRequestDto {
  @IsOptionalNotNull() @IsUUID() channelId?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(512) name?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(20) language?: string;
  /** APPROVED, PENDING, REJECTED, PAUSED, DISABLED, … (case-insensitive). */
  @IsOptionalNotNull() @IsString() @MaxLength(30) status?: string;
  /** MARKETING, UTILITY or AUTHENTICATION (case-insensitive). */
  @IsOptionalNotNull() @IsString() @MaxLength(30) category?: string;
}

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;

/**
 * Create Template: a template of the channel's WhatsApp Business Account, either with its own
 * components (each placeholder with an example, as Meta requires for review) or from Meta's
 * template library (`libraryTemplateName`), never both.
 */
export class CreateTemplateDto {
  @ApiProperty({ format: 'uuid', example: '0196b3a0-0000-7000-8000-000000000001' })
  @IsUUID()
  channelId: string;
  /** Lower-case letters, digits and underscores, as Meta takes template names. */
  @ApiProperty({ example: 'spring_sale' })
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  @Matches(/^[a-z0-9_]+$/, { message: 'name may hold only lower-case letters, digits and underscores.' })
  name: string;
  @ApiProperty({ example: 'en' }) @IsString() @MinLength(2) @MaxLength(20) language: string;
  @ApiProperty({ enum: TEMPLATE_CATEGORIES, example: 'MARKETING' }) @IsIn(TEMPLATE_CATEGORIES) category: string;
  @ApiProperty({
    required: false,
    type: [TemplateComponentDefinitionDto],
    example: [
      { type: 'BODY', text: 'Hi {{1}}, our spring sale starts {{2}}.', example: { body_text: [['Sara', 'Monday']] } },
      { type: 'FOOTER', text: 'Reply STOP to opt out' },
    ],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(4)
  @ValidateNestedObject({ each: true })
  @Type(() => TemplateComponentDefinitionDto)
  components?: TemplateComponentDefinitionDto[];
  /** A template of Meta's template library, by its name (e.g. `order_confirmation`); instead of `components`. */
  @ApiProperty({ required: false, example: 'payment_reminder_1' })
  @IsOptionalNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  libraryTemplateName?: string;
}

/** Delete Template: the channel whose template is deleted. */
export class DeleteTemplateQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() channelId: string;
}

export class TemplateHeaderDto {
  format: string;
  @ApiProperty({ type: String, nullable: true }) text: string | null;
  @ApiProperty({ type: String, nullable: true }) exampleUrl: string | null;
}

export class TemplateButtonDto {
  index: number;
  type: string;
  text: string;
  @ApiProperty({ type: String, nullable: true }) url: string | null;
  @ApiProperty({ type: String, nullable: true }) phoneNumber: string | null;
  /** Takes a Buttons entry in Send Template (a URL with a placeholder, or a quick reply). */
  isDynamic: boolean;
}

/** One value Send Template expects, and where it goes. */
export class ServiceAccountTemplateParameterDto {
  /** `Header`, `Body` or `Buttons`. */
  component: string;
  /** Position: the placeholder number for Body, the button index for Buttons, 0 for Header. */
  index: number;
  @ApiProperty({ type: String, nullable: true, description: '`url` or `quick_reply` for Buttons.' }) subType: string | null;
  /** Value type to send: text, image, document or video. */
  type: string;
  @ApiProperty({ type: String, nullable: true }) placeholder: string | null;
  @ApiProperty({ type: String, nullable: true }) example: string | null;
}

export class ServiceAccountTemplateDto {
  id: string;
  channelId: string;
  name: string;
  language: string;
  category: string;
  status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Meta's quality score: GREEN, YELLOW, RED or UNKNOWN; null until Meta rates it.",
  })
  qualityScore: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Meta's reason for the last status change (a rejection's, a pause's), when it gave one.",
  })
  statusReason: string | null;
  @ApiProperty({ type: TemplateHeaderDto, nullable: true }) header: TemplateHeaderDto | null;
  @ApiProperty({ type: String, nullable: true }) body: string | null;
  @ApiProperty({ type: String, nullable: true }) footer: string | null;
  @ApiProperty({ type: [TemplateButtonDto] }) buttons: TemplateButtonDto[];
  @ApiProperty({ type: [ServiceAccountTemplateParameterDto] }) parameters: ServiceAccountTemplateParameterDto[];
  /** ISO 8601 UTC. */
  creationTime: string;

  static from(template: WhatsAppTemplate): ServiceAccountTemplateDto {
    const find = <T extends TemplateComponent['type']>(type: T) =>
      template.components.find((c) => c.type === type) as Extract<TemplateComponent, { type: T }> | undefined;
    const header = find('HEADER');
    const body = find('BODY');
    const buttons = (find('BUTTONS')?.buttons ?? []).map((b, index) => ({
      index,
      type: b.type,
      text: b.text,
      url: b.url ?? null,
      phoneNumber: b.phone_number ?? null,
      isDynamic: b.type === 'QUICK_REPLY' || (b.type === 'URL' && placeholderCount(b.url) > 0),
    }));
    const parameters: ServiceAccountTemplateParameterDto[] = [];
    if (header && (header.format !== 'TEXT' || placeholderCount(header.text) > 0)) {
      const exampleUrl = headerExampleUrl(header);
      parameters.push({
        component: 'Header',
        index: 0,
        subType: null,
        type: header.format.toLowerCase(),
        placeholder: header.format === 'TEXT' ? '{{1}}' : null,
        example: exampleUrl,
      });
    }
    for (let n = 1; n <= placeholderCount(body?.text); n++)
      parameters.push({ component: 'Body', index: n, subType: null, type: 'text', placeholder: `{{${n}}}`, example: null });
    for (const b of buttons.filter((x) => x.isDynamic)) {
      parameters.push({
        component: 'Buttons',
        index: b.index,
        subType: b.type === 'URL' ? 'url' : 'quick_reply',
        type: 'text',
        placeholder: b.type === 'URL' ? '{{1}}' : null,
        example: null,
      });
    }
    return {
      id: template.id,
      channelId: template.channelId,
      name: template.name,
      language: template.language,
      category: template.category,
      status: template.status,
      qualityScore: template.qualityScore ?? null,
      statusReason: template.statusReason ?? null,
      header: header
        ? {
            format: header.format,
            text: header.text ?? null,
            exampleUrl: headerExampleUrl(header),
          }
        : null,
      body: body?.text ?? null,
      footer: find('FOOTER')?.text ?? null,
      buttons,
      parameters,
      creationTime: TimestampFormat.utc(template.creationTime),
    };
  }
}

export class SandboxMessageDto {
  id: string;
  /** ISO 8601 UTC. */
  creationTime: string;
  @ApiProperty({ type: Object, additionalProperties: true, description: 'The exact WhatsApp Cloud API request body.' }) request: Record<
    string,
    unknown
  >;

  static from(message: SandboxMessage): SandboxMessageDto {
    return { id: message.id, creationTime: TimestampFormat.utc(message.creationTime), request: message.request };
  }
}
