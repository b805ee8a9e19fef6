import { ApiProperty } from '@nestjs/swagger';
import type { ValidationErrorItem } from './domain-error.js';

export class ValidationErrorItemDto {
  @ApiProperty() message: string;
  @ApiProperty({ type: [String] }) members: string[];
}

export class ErrorInfoDto {
  @ApiProperty({ example: 'Contacts:PropertyRequired' }) code: string;
  @ApiProperty() message: string;
  @ApiProperty({ type: String, nullable: true }) details: string | null;
  @ApiProperty({ type: [ValidationErrorItemDto], nullable: true }) validationErrors: ValidationErrorItem[] | null;
}

/** The body of every failed request (API.md §1). */
export class ErrorEnvelopeDto {
  @ApiProperty({ example: 400 }) statusCode: number;
  @ApiProperty() message: string;
  @ApiProperty({ type: ErrorInfoDto }) error: ErrorInfoDto;
}

export function errorEnvelope(
  statusCode: number,
  code: string,
  message: string,
  details: string | null = null,
  validationErrors: ValidationErrorItem[] | null = null,
): ErrorEnvelopeDto {
  return { statusCode, message, error: { code, message, details, validationErrors } };
}
