import { IsString, MaxLength, MinLength } from 'class-validator';
import type { CreatedServiceAccount } from '../../auth/service-accounts.service.js';

export class CreateServiceAccountDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
}

export class CreatedServiceAccountDto {
  id: string;
  name: string;
  clientId: string;
  /** Shown only in this response. */
  clientSecret: string;

  static from(account: CreatedServiceAccount): CreatedServiceAccountDto {
    return { id: account.id, name: account.name, clientId: account.clientId, clientSecret: account.clientSecret };
  }
}
