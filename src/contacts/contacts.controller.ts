import type { Contact } from './contact.entity.js';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { ContactViews } from './contact-views.js';
import { ContactsService } from './contacts.service.js';
import { ContactConsent } from './contact-consent.service.js';
import { WhatsAppCallPermissions } from './whatsapp-call-permissions.service.js';
import { ContactPropertyValues } from './contact-property-values.service.js';
import {
  ContactDto,
  ContactHistoryEntryDto,
  CreateContactDto,
  GetContactsQueryDto,
  SetPropertyValueDto,
  UpdateContactDto,
} from './dto/contact.dto.js';
import { SearchContactsDto } from './dto/search-contacts.dto.js';
import { ContactConsentDto, UpdateContactConsentDto } from './dto/consent.dto.js';
import { ImportVCardsDto, ImportVCardsResultDto } from './dto/import-vcards.dto.js';
import { ContactImportService } from './contact-import.service.js';

const ContactId = (name = 'id') => Param(name, new ParseIdPipe('Contacts:Contact'));
const PropertyId = () => Param('propertyId', new ParseIdPipe('ContactProperties:Property'));
const PagedContacts = PagedResultOf(ContactDto, 'PagedResultOfContactDto');

@ApiTags('Contact')
@ApiBearerAuth()
@Controller('v1/contacts')
export class ContactsController {
  constructor(
    private readonly contacts: ContactsService,
    private readonly propertyValues: ContactPropertyValues,
    private readonly consents: ContactConsent,
    private readonly callPermissions: WhatsAppCallPermissions,
    private readonly views: ContactViews,
    private readonly imports: ContactImportService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Contact',
    description:
      'Creates a contact. The phone number is normalised to E.164; a number already in the workspace is a 409. `note` adds a first note.',
  })
  @ApiConflictResponse({
    description:
      'A contact with this phone number (or WhatsApp user id) already exists in the workspace (`Contacts:DuplicatePhoneNumber`).',
  })
  @ApiBody({ type: CreateContactDto })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateContactDto): Promise<ContactDto> {
    return this.views.one(await this.contacts.create(principal, body));
  }

  @Get()
  @ApiOperation({
    summary: 'Get Contacts',
    description: "A page of the workspace's contacts, with their custom property values and notes; `Filter` matches name, phone or email.",
  })
  @ApiOkResponse({ type: PagedContacts })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: GetContactsQueryDto): Promise<PagedResult<ContactDto>> {
    return this.views.page(await this.contacts.find(workspaceId, query, query));
  }

  @Post('search')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search Contacts',
    description:
      'Contacts matching every given criterion: text filter, tags, typed custom property filters (operators 1-10), and consent statuses (`consent: { whatsAppMarketing?, calls? }`).',
  })
  @ApiOkResponse({ type: PagedContacts })
  async search(@CurrentWorkspace() workspaceId: string, @Body() body: SearchContactsDto): Promise<PagedResult<ContactDto>> {
    return this.views.page(await this.contacts.find(workspaceId, body, body));
  }

  @Post('import/vcards')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Bulk Contacts vCards',
    description:
      'Up to 10,000 vCards (2.1, 3.0, 4.0). Unreadable cards are reported by index; numbers already in the workspace are not overwritten.',
  })
  importVCards(@CurrentPrincipal() principal: Principal, @Body() body: ImportVCardsDto): Promise<ImportVCardsResultDto> {
    return this.imports.importVCards(principal, body.vCards);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get Contact By Id', description: 'One contact with its custom property values and notes.' })
  async get(@CurrentWorkspace() workspaceId: string, @ContactId() id: string): Promise<ContactDto> {
    return this.views.one(await this.contacts.get(workspaceId, id));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update Contact',
    description: 'Changes only the fields present in the body; `note` appends a note. A phone number another contact has is a 409.',
  })
  @ApiConflictResponse({ description: 'Another contact has this phone number (or WhatsApp user id) (`Contacts:DuplicatePhoneNumber`).' })
  async update(@CurrentPrincipal() principal: Principal, @ContactId() id: string, @Body() body: UpdateContactDto): Promise<ContactDto> {
    return this.views.one(await this.contacts.update(principal, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Contact', description: 'Deletes the contact with its property values, notes and history.' })
  async remove(@CurrentWorkspace() workspaceId: string, @ContactId() id: string): Promise<void> {
    await this.contacts.remove(workspaceId, id);
  }

  @Put(':contactId/properties/:propertyId')
  @ApiOperation({
    summary: 'Set Property Value on Contact',
    description:
      'propertyId is the id of the property definition (List Contact Properties), not of a value record. null removes the value; a required property cannot be set to null; a Select value must be one of selectOptions.',
  })
  async setProperty(
    @CurrentPrincipal() principal: Principal,
    @ContactId('contactId') contactId: string,
    @PropertyId() propertyId: string,
    @Body() body: SetPropertyValueDto,
  ): Promise<ContactDto> {
    return this.views.one(await this.propertyValues.set(principal, contactId, propertyId, body.value));
  }

  @Delete(':contactId/properties/:propertyId')
  @ApiOperation({
    summary: 'Delete Property Value on Contact',
    description: 'Same as setting the value to null, including the required check.',
  })
  async deleteProperty(
    @CurrentPrincipal() principal: Principal,
    @ContactId('contactId') contactId: string,
    @PropertyId() propertyId: string,
  ): Promise<ContactDto> {
    return this.views.one(await this.propertyValues.set(principal, contactId, propertyId, null));
  }

  @Get(':contactId/consent')
  @ApiOperation({
    summary: 'Get Contact Consent',
    description:
      "The contact's consent to WhatsApp marketing messages and to calls: Unknown, OptedIn or OptedOut, with when and how (Api, Keyword, Provider, Import) it was set; while Unknown, `at` and `source` are null.",
  })
  async consent(@CurrentWorkspace() workspaceId: string, @ContactId('contactId') contactId: string): Promise<ContactConsentDto> {
    return this.consentOf(workspaceId, await this.contacts.get(workspaceId, contactId));
  }

  @Put(':contactId/consent')
  @ApiOperation({
    summary: 'Update Contact Consent',
    description:
      'Sets the consents present in the body (`source` is Api when left out). Every change of a status is a history entry (`WhatsAppMarketingConsent`, `CallConsent`) and a `contact.updated` event; setting the status a consent already has changes nothing. A MARKETING template to a contact opted out of WhatsApp marketing, or a call to one opted out of calls, is refused.',
  })
  async updateConsent(
    @CurrentPrincipal() principal: Principal,
    @ContactId('contactId') contactId: string,
    @Body() body: UpdateContactConsentDto,
  ): Promise<ContactConsentDto> {
    return this.consentOf(principal.workspaceId, await this.consents.update(principal, contactId, body));
  }

  @Get(':contactId/history')
  @ApiOperation({
    summary: 'Contacts History',
    description: "Every change of the contact's built-in fields and custom property values, newest first.",
  })
  @ApiOkResponse({ type: PagedResultOf(ContactHistoryEntryDto, 'PagedResultOfContactHistoryEntryDto') })
  async history(
    @CurrentWorkspace() workspaceId: string,
    @ContactId('contactId') contactId: string,
    @Query() paging: PagedRequestDto,
  ): Promise<PagedResult<ContactHistoryEntryDto>> {
    return mapPage(
      await this.contacts.history(workspaceId, contactId, paging.skipCount, paging.maxResultCount),
      ContactHistoryEntryDto.from,
    );
  }

  private async consentOf(workspaceId: string, contact: Contact): Promise<ContactConsentDto> {
    // Kept under the user's number, or their BSUID when they share none (API.md §15).
    const user = contact.phoneNumber ?? contact.whatsAppUserId;
    const whatsAppCalls = user
      ? await this.callPermissions.ofUser(workspaceId, user)
      : { status: 'Unknown' as const, expiresAt: null, permanent: false };
    return ContactConsentDto.from(contact, whatsAppCalls);
  }
}
