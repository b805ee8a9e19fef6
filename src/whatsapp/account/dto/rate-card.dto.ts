import { ApiProperty } from '@nestjs/swagger';
import { IsObject, IsString, MaxLength } from 'class-validator';
import { PRICING_CATEGORIES } from '../pricing-categories.js';

export class PutRateCardDto {
  /** ISO 4217 currency code of the prices. */
  @ApiProperty({ example: 'EUR' }) @IsString() @MaxLength(10) currency: string;
  /** Price of one charged message per Meta category; categories left out are not estimated. */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number', minimum: 0 },
    description: `Keys: ${PRICING_CATEGORIES.join(', ')}.`,
    example: { marketing: 0.0456, utility: 0.0132, authentication: 0.0132 },
  })
  @IsObject()
  perCategory: Record<string, number>;
}

export class RateCardDto {
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { marketing: 0.0456, utility: 0.0132, authentication: 0.0132 },
  })
  perCategory: Record<string, number>;
  /** ISO 8601 UTC. */
  @ApiProperty({ example: '2026-11-28T12:00:00Z' }) updatedAt: string;
}
