import { IsString, MaxLength } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

/** OAuth 2.0 client-credentials request (RFC 6749 §4.4), as a form or JSON. Checked by the service so errors follow RFC 6749 §5.2. */
export class TokenRequestDto {
  // Validated by TokenService rather than the global pipe, so that a missing field is RFC 6749's `invalid_request`.
  @ApiProperty({ required: true, enum: ['client_credentials'], example: 'client_credentials', description: 'Always `client_credentials`.' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(100)
  grant_type?: string;

  @ApiPropertyOptional({
    example: 'demo-client-id',
    description: "The service account's client id. Required unless the client authenticates with HTTP Basic (RFC 6749 §2.3.1).",
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  client_id?: string;

  @ApiPropertyOptional({
    example: 'demo-client-secret',
    description: "The service account's client secret. Required unless the client authenticates with HTTP Basic.",
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(500)
  client_secret?: string;
  /** Space-separated scopes; omitted means the API scope. */
  @IsOptionalNotNull() @IsString() @MaxLength(500) scope?: string;
}

export class TokenResponseDto {
  access_token: string;
  /** Always `Bearer`. */
  token_type: string;
  /** Lifetime in seconds. */
  expires_in: number;
  scope: string;
}

export class OAuthErrorDto {
  /** `invalid_request`, `invalid_client`, `unsupported_grant_type` or `invalid_scope`. */
  error: string;
  error_description?: string;
}
