import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsEnum, IsOptional } from 'class-validator';
import { IntEnumProperty } from '../openapi/int-enum.js';

/** Voice of synthesized speech. */
export enum TtsVoice {
  Female = 1,
  Male = 2,
}

/** `"Female"`/`"Male"` in any case, or 1/2, to the enum; anything else is left for IsEnum to refuse. */
function toTtsVoice({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const byName = Object.entries(TtsVoice).find(([name]) => name.toLowerCase() === value.trim().toLowerCase());
  return byName ? byName[1] : value;
}

/** An optional `ttsVoice` request field: name or number on input, the integer on output. */
export function TtsVoiceField(): PropertyDecorator {
  return applyDecorators(
    IntEnumProperty(TtsVoice, 'TtsVoice', { required: false, description: '1 Female (default), 2 Male; "Female"/"Male" also accepted.' }),
    Transform(toTtsVoice),
    IsOptional(),
    IsEnum(TtsVoice, { message: 'ttsVoice must be "Female", "Male", 1 or 2' }),
  );
}
