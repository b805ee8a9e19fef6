import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import type { TemplateButtonType, TemplateComponent, TemplateHeaderFormat } from '../templates/whatsapp-template.entity.js';

const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] as const;
const HEADER_FORMATS: TemplateHeaderFormat[] = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'];
const BUTTON_TYPES: TemplateButtonType[] = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER'];

/** A button of a BUTTONS component. */
export class TemplateButtonDefinitionDto {
  /** `QUICK_REPLY`, `URL` or `PHONE_NUMBER`. */
  @IsIn(BUTTON_TYPES) type: TemplateButtonType;
  @IsString() @MinLength(1) @MaxLength(200) text: string;
  /** For URL buttons; `{{1}}` makes it dynamic. */
  @ValidateIf((b: TemplateButtonDefinitionDto) => b.type === 'URL') @IsString() @MinLength(1) @MaxLength(2048) url?: string;
  /** For PHONE_NUMBER buttons. */
  @ValidateIf((b: TemplateButtonDefinitionDto) => b.type === 'PHONE_NUMBER') @IsString() @MinLength(1) @MaxLength(32) phone_number?: string;
}

/**
 * One component as the Business Management API describes it: HEADER (`format`, `text` for TEXT),
 * BODY and FOOTER (`text`), BUTTONS (`buttons`). Each is checked for what its type needs, so that a
 * stored template can always be listed and sent.
 */
export class TemplateComponentDefinitionDto {
  /** `HEADER`, `BODY`, `FOOTER` or `BUTTONS`. */
  @IsIn(COMPONENT_TYPES) type: TemplateComponent['type'];
  /** HEADER: `TEXT`, `IMAGE`, `VIDEO` or `DOCUMENT`. */
  @ValidateIf((c: TemplateComponentDefinitionDto) => c.type === 'HEADER') @IsIn(HEADER_FORMATS) format?: TemplateHeaderFormat;
  /** BODY, FOOTER, and a TEXT HEADER. */
  @ValidateIf(
    (c: TemplateComponentDefinitionDto) => c.type === 'BODY' || c.type === 'FOOTER' || (c.type === 'HEADER' && c.format === 'TEXT'),
  )
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  text?: string;
  /** HEADER and BODY: sample values, e.g. `{ "header_handle": ["https://..."] }`. */
  @IsOptional() @IsObject() example?: Record<string, unknown>;
  /** BUTTONS: 1 to 10 buttons. */
  @ValidateIf((c: TemplateComponentDefinitionDto) => c.type === 'BUTTONS')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNestedObject({ each: true })
  @Type(() => TemplateButtonDefinitionDto)
  buttons?: TemplateButtonDefinitionDto[];
}

/** TemplateDefinition of API.md §3: a WhatsApp template as the Business Management API describes it. */
export class TemplateDefinitionDto {
  @IsString() @MinLength(1) @MaxLength(512) name: string;
  @IsString() @MinLength(2) @MaxLength(20) language: string;
  @IsIn(['MARKETING', 'UTILITY', 'AUTHENTICATION']) category: string;
  @IsIn(['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED']) status: string;
  /** HEADER, BODY, FOOTER and BUTTONS components. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(4)
  @ValidateNestedObject({ each: true })
  @Type(() => TemplateComponentDefinitionDto)
  components: TemplateComponentDefinitionDto[];
}

/** The validated components as stored: each with the fields of its type only. */
export function toTemplateComponents(components: TemplateComponentDefinitionDto[]): TemplateComponent[] {
  return components.map((c): TemplateComponent => {
    switch (c.type) {
      case 'HEADER':
        return {
          type: 'HEADER',
          format: c.format!,
          ...(c.text !== undefined && { text: c.text }),
          ...(c.example && { example: c.example }),
        };
      case 'BODY':
        return { type: 'BODY', text: c.text!, ...(c.example && { example: c.example }) };
      case 'FOOTER':
        return { type: 'FOOTER', text: c.text! };
      case 'BUTTONS':
        return {
          type: 'BUTTONS',
          buttons: c.buttons!.map((b) => ({
            type: b.type,
            text: b.text,
            ...(b.type === 'URL' && { url: b.url }),
            ...(b.type === 'PHONE_NUMBER' && { phone_number: b.phone_number }),
          })),
        };
    }
  });
}
