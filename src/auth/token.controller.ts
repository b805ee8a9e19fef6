import { Body, Controller, HttpCode, Post, UseFilters } from '@nestjs/common';
import { AuthorizationHeader } from './authorization-header.decorator.js';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { NoStore } from '../common/http/no-store.decorator.js';
import { RateLimit } from '../rate-limiting/rate-limit.decorator.js';
import { RateLimitPolicy } from '../rate-limiting/rate-limit-policy.js';
import { OAuthErrorDto, TokenRequestDto, TokenResponseDto } from './dto/token-request.dto.js';
import { OAuthErrorFilter } from './oauth-error.js';
import { Public } from './public.decorator.js';
import { TokenService } from './token.service.js';

@ApiTags('Account API')
@Controller('connect')
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Public()
  @Post('token')
  @HttpCode(200)
  @NoStore()
  // Per client address, before the body is validated or any secret hashed.
  @RateLimit(RateLimitPolicy.UnauthenticatedRequests)
  @UseFilters(OAuthErrorFilter)
  @ApiOperation({
    summary: 'Service Login',
    description:
      'OAuth 2.0 client credentials: exchanges a client id and secret for a bearer token. The client authenticates in the body (`client_id`, `client_secret`) or with HTTP Basic (RFC 6749 §2.3.1).',
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, type: OAuthErrorDto, description: 'invalid_request, unsupported_grant_type or invalid_scope' })
  @ApiResponse({ status: 401, type: OAuthErrorDto, description: 'invalid_client' })
  token(@Body() body: TokenRequestDto, @AuthorizationHeader() authorization?: string): Promise<TokenResponseDto> {
    return this.tokens.issue(body, authorization);
  }
}
