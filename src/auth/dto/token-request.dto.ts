import { IsString, MaxLength } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

/** OAuth 2.0 client-credentials request (RFC 6749 §4.4), as a form or JSON. Checked by the service so errors follow RFC 6749 §5.2. */
export class TokenRequestDto {
  /** Must be `client_credentials`. */
  @IsOptionalNotNull() @IsString() @MaxLength(100) grant_type?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(200) client_id?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(500) client_secret?: string;
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
