import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags, ApiConflictResponse } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { CreateTagDto, ListTagsQueryDto, TagDto, UpdateTagDto } from './dto/tag.dto.js';
import { TagsService } from './tags.service.js';

const TagId = () => Param('id', new ParseIdPipe('Tags:Tag'));

@ApiTags('Tags API')
@ApiBearerAuth()
@Controller('v1/tags/service-account')
export class TagsController {
  constructor(private readonly tags: TagsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Tag', description: 'Creates a tag for conversations; a name already used is a 409.' })
  @ApiConflictResponse({ description: 'A tag with this name exists (`Tags:DuplicateName`).' })
  async create(@CurrentWorkspace() workspaceId: string, @Body() body: CreateTagDto): Promise<TagDto> {
    return TagDto.from(await this.tags.create(workspaceId, body));
  }

  @Get()
  @ApiOperation({ summary: 'List Tags', description: "A page of the workspace's tags." })
  @ApiOkResponse({ type: PagedResultOf(TagDto, 'PagedResultOfTagDto') })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: ListTagsQueryDto): Promise<PagedResult<TagDto>> {
    return mapPage(await this.tags.list(workspaceId, query), TagDto.from);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update Tag', description: 'Changes only the fields present in the body; a name already used is a 409.' })
  @ApiConflictResponse({ description: 'A tag with this name exists (`Tags:DuplicateName`).' })
  async update(@CurrentWorkspace() workspaceId: string, @TagId() id: string, @Body() body: UpdateTagDto): Promise<TagDto> {
    return TagDto.from(await this.tags.update(workspaceId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Tag', description: 'Deletes a tag; a tag still on a conversation is a 409.' })
  @ApiConflictResponse({ description: 'The tag is on a conversation (`Tags:TagInUse`).' })
  async remove(@CurrentWorkspace() workspaceId: string, @TagId() id: string): Promise<void> {
    await this.tags.remove(workspaceId, id);
  }
}
