import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, IsUrl, MaxLength, MinLength } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { HTTP_URL } from '../../outbound-ivr/dto/ivr-option.dto.js';
import { INTELLIGENCE_PROVIDERS, type IntelligenceProvider } from '../call-intelligence.entity.js';

export const MAX_EVALUATION_CRITERIA = 20;

/** An OpenAI-compatible server (OpenAI itself, whisper.cpp's server, vLLM, ...) or none. */
export class SetProviderDto {
  @ApiProperty({ enum: INTELLIGENCE_PROVIDERS, example: 'openai-compatible' })
  @IsIn(INTELLIGENCE_PROVIDERS)
  provider: IntelligenceProvider;

  /** The API's base, to which `/audio/transcriptions` or `/chat/completions` is appended. Required for openai-compatible. */
  @ApiPropertyOptional({ example: 'https://api.openai.com/v1', nullable: true })
  @IsOptional()
  @IsUrl(HTTP_URL)
  @MaxLength(2048)
  baseUrl?: string | null;

  @ApiPropertyOptional({ example: 'whisper-1', nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model?: string | null;

  /**
   * Write-only. The API key, sent as `Authorization: Bearer`, or `env:CALL_INTELLIGENCE_KEY_<NAME>`:
   * the value of that environment variable of the worker, so that the key is never stored here.
   * Left out keeps the one stored before; null removes it.
   */
  @ApiPropertyOptional({ writeOnly: true, nullable: true, example: 'env:CALL_INTELLIGENCE_KEY_OPENAI' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  apiKeyRef?: string | null;
}

export class SetSummaryProviderDto extends SetProviderDto {
  /** Extra instructions given to the language model with the transcript. */
  @ApiPropertyOptional({ nullable: true, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  prompt?: string | null;
}

export class EvaluationCriterionDto {
  @ApiProperty({ example: 'Greeted the customer', maxLength: 100 })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  @ApiProperty({ example: 'The agent greets the customer by name in the first sentence.', maxLength: 1000 })
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  description: string;
}

export class SetCallIntelligenceDto {
  @ApiProperty({ type: SetProviderDto })
  @ValidateNestedObject()
  @Type(() => SetProviderDto)
  transcription: SetProviderDto;

  @ApiProperty({ type: SetSummaryProviderDto })
  @ValidateNestedObject()
  @Type(() => SetSummaryProviderDto)
  summary: SetSummaryProviderDto;

  @ApiPropertyOptional({ type: [EvaluationCriterionDto], maxItems: MAX_EVALUATION_CRITERIA })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_EVALUATION_CRITERIA)
  @ValidateNestedObject({ each: true })
  @Type(() => EvaluationCriterionDto)
  evaluationCriteria?: EvaluationCriterionDto[];
}

export class ProviderDto {
  @ApiProperty({ enum: INTELLIGENCE_PROVIDERS }) provider: IntelligenceProvider;
  @ApiProperty({ type: String, nullable: true }) baseUrl: string | null;
  @ApiProperty({ type: String, nullable: true }) model: string | null;
  /** Whether an API key (or a reference to one) is stored; the key itself is never returned. */
  apiKeySet: boolean;
}

export class SummaryProviderDto extends ProviderDto {
  @ApiProperty({ type: String, nullable: true }) prompt: string | null;
}

export class CallIntelligenceDto {
  transcription: ProviderDto;
  summary: SummaryProviderDto;
  @ApiProperty({ type: [EvaluationCriterionDto] }) evaluationCriteria: EvaluationCriterionDto[];
}
