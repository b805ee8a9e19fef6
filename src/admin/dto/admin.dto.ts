import { IsString, MaxLength, MinLength } from 'class-validator';

export class CreateServiceAccountDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
}

export class CreatedServiceAccountDto {
  id: string;
  name: string;
  clientId: string;
  /** Shown only in this response. */
  clientSecret: string;
}
