import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { ContactPropertiesService } from './contact-properties.service.js';
import {
  ContactPropertyDefinitionDto,
  CreateContactPropertyDto,
  SelectOptionDto,
  UpdateContactPropertyDto,
} from './dto/contact-property.dto.js';

const PropertyId = () => Param('id', new ParseIdPipe('ContactProperties:Property'));

@ApiTags('Contact Properties')
// Select options may be sent as { value, color } (or plain strings).
@ApiExtraModels(SelectOptionDto)
@ApiBearerAuth()
@Controller('v1/contact-property-definitions')
export class ContactPropertiesController {
  constructor(private readonly properties: ContactPropertiesService) {}

  @Get()
  @ApiOperation({
    summary: 'List Contact Properties',
    description: "The workspace's custom contact property definitions, in the order they were created.",
  })
  async list(@CurrentWorkspace() workspaceId: string): Promise<ContactPropertyDefinitionDto[]> {
    return (await this.properties.list(workspaceId)).map(ContactPropertyDefinitionDto.from);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Contact Property',
    description:
      'Defines a custom property. `type` is the integer or its name (`"Select"`); `selectOptions` items are strings or `{ value, color }`; a Select needs at least one option. The `key` is derived from the name.',
  })
  @ApiConflictResponse({ description: 'A property with this name (case-insensitive) exists (`ContactProperties:DuplicateName`).' })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateContactPropertyDto): Promise<ContactPropertyDefinitionDto> {
    return ContactPropertyDefinitionDto.from(await this.properties.create(principal.workspaceId, principal.serviceAccountId, body));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update Contact Property',
    description:
      'Changes the name, the required flag or the options; only the fields sent change. The type cannot change; removing an option that contacts hold is a 400 naming how many.',
  })
  @ApiConflictResponse({ description: 'A property with this name (case-insensitive) exists (`ContactProperties:DuplicateName`).' })
  async update(
    @CurrentPrincipal() principal: Principal,
    @PropertyId() id: string,
    @Body() body: UpdateContactPropertyDto,
  ): Promise<ContactPropertyDefinitionDto> {
    return ContactPropertyDefinitionDto.from(await this.properties.update(principal.workspaceId, id, principal.serviceAccountId, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Contact Property', description: "Deletes the definition and every contact's value of it." })
  async remove(@CurrentWorkspace() workspaceId: string, @PropertyId() id: string): Promise<void> {
    await this.properties.remove(workspaceId, id);
  }
}
