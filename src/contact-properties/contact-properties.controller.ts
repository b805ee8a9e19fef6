import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { ContactPropertiesService } from './contact-properties.service.js';
import { ContactPropertyDefinitionDto, CreateContactPropertyDto, UpdateContactPropertyDto } from './dto/contact-property.dto.js';

const PropertyId = () => Param('id', new ParseIdPipe('ContactProperties:Property'));

@ApiTags('Contact Properties')
@ApiBearerAuth()
@Controller('v1/contact-property-definitions')
export class ContactPropertiesController {
  constructor(private readonly properties: ContactPropertiesService) {}

  @Get()
  @ApiOperation({ summary: 'List Contact Properties' })
  async list(@CurrentWorkspace() workspaceId: string): Promise<ContactPropertyDefinitionDto[]> {
    return (await this.properties.list(workspaceId)).map(ContactPropertyDefinitionDto.from);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Contact Property' })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateContactPropertyDto): Promise<ContactPropertyDefinitionDto> {
    return ContactPropertyDefinitionDto.from(await this.properties.create(principal.workspaceId, principal.serviceAccountId, body));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update Contact Property' })
  async update(
    @CurrentPrincipal() principal: Principal,
    @PropertyId() id: string,
    @Body() body: UpdateContactPropertyDto,
  ): Promise<ContactPropertyDefinitionDto> {
    return ContactPropertyDefinitionDto.from(await this.properties.update(principal.workspaceId, id, principal.serviceAccountId, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Contact Property' })
  async remove(@CurrentWorkspace() workspaceId: string, @PropertyId() id: string): Promise<void> {
    await this.properties.remove(workspaceId, id);
  }
}
