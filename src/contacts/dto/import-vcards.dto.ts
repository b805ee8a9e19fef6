import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, MaxLength } from 'class-validator';

export class ImportVCardsDto {
  /** vCard 2.1, 3.0 or 4.0 texts, one per contact; at most 10,000. */
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(10_000) @IsString({ each: true }) @MaxLength(20_000, { each: true }) vCards: string[];
}

export class ImportVCardErrorDto {
  /** Position of the card in the request. */
  index: number;
  message: string;
}

export class ImportVCardsResultDto {
  totalCount: number;
  createdCount: number;
  /** Cards whose number was already a contact of the workspace (or earlier in the request); not overwritten. */
  existingCount: number;
  failedCount: number;
  errors: ImportVCardErrorDto[];
  /** The contact of each readable card (created or existing), in request order. */
  contactIds: string[];
}
