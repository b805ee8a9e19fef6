import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, registerDecorator } from 'class-validator';
import { toE164 } from '../../common/phone/phone-number.js';

export const MAX_SANDBOX_MACHINES = 1000;

/** Every entry a valid international number (already normalised to E.164 by the transform). */
function EachInternationalNumber(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'eachInternationalNumber',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'each entry of numbers must be a valid international phone number' },
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) && value.every((n) => typeof n === 'string' && n.startsWith('+') && toE164(n) === n),
      },
    });
}

/** The numbers the sandbox voice provider answers with an answering machine (API.md §14). */
export class SandboxMachinesDto {
  @ApiProperty({
    type: [String],
    maxItems: MAX_SANDBOX_MACHINES,
    example: ['966501234567'],
    description: 'International numbers, digits only or with a leading +; the list replaces the previous one ([] clears it).',
  })
  @IsArray()
  @ArrayMaxSize(MAX_SANDBOX_MACHINES)
  @IsString({ each: true })
  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? value.map((n: unknown) => (typeof n === 'string' ? (toE164(n) ?? n) : n)) : value,
  )
  @EachInternationalNumber()
  numbers: string[];
}

export class SandboxMachinesResponseDto {
  @ApiProperty({ format: 'uuid' }) channelId: string;
  /** E.164, without duplicates. */
  numbers: string[];
}
