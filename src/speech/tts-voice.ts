import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ApiProperty } from '@nestjs/swagger';
import { intEnumValues, IsIntEnum } from '../openapi/int-enum.js';
import { IsOptionalNotNull } from '../common/validation/optional.js';

/** Voice of synthesized speech. */
export enum TtsVoice {
  Female = 1,
  Male = 2,
}

/** `"Female"`/`"Male"` in any case, or 1/2 (also as strings), to the enum; anything else is left for validation to refuse. */
function toTtsVoice({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const name = Object.keys(TtsVoice).find((key) => Number.isNaN(Number(key)) && key.toLowerCase() === text.toLowerCase());
  return name ? TtsVoice[name as keyof typeof TtsVoice] : value;
}

/** An optional `ttsVoice` request field: name or number on input, the integer on output. */
export function TtsVoiceField(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      required: false,
      description: '1 Female (default), 2 Male, or the name.',
      oneOf: [
        { type: 'integer', enum: intEnumValues(TtsVoice) },
        { type: 'string', enum: ['Female', 'Male'] },
      ],
    }),
    Transform(toTtsVoice),
    IsOptionalNotNull(),
    IsIntEnum(TtsVoice, { message: 'ttsVoice must be "Female", "Male", 1 or 2' }),
  );
}
