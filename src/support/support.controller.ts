import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentWorkspace } from '../auth/principal.js';
import { ErrorEnvelopeDto } from '../common/errors/error-envelope.js';
import { UploadedMediaDto } from './dto/uploaded-media.dto.js';
import { multipartFile } from './multipart-file.js';
import { SupportService } from './support.service.js';

const fileBody = (field: string, description: string) =>
  ApiBody({
    schema: { type: 'object', required: [field], properties: { [field]: { type: 'string', format: 'binary', description } } },
  });

@ApiTags('Support API')
@ApiBearerAuth()
@ApiConsumes('multipart/form-data')
@ApiOkResponse({ type: UploadedMediaDto })
@ApiResponse({ status: 413, type: ErrorEnvelopeDto, description: 'Larger than the limit for its type (refused while streaming).' })
@ApiResponse({ status: 415, type: ErrorEnvelopeDto, description: 'Not a type this operation takes, judged by the bytes.' })
@ApiResponse({
  status: 503,
  type: ErrorEnvelopeDto,
  description: 'Media storage (an S3 bucket) does not answer: `Storage:Unavailable`, nothing stored; try again after `Retry-After`.',
})
@Controller('v1/support')
export class SupportController {
  constructor(private readonly uploads: SupportService) {}

  @Post('upload')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Upload Image, Video, or PDF',
    description: 'JPEG/PNG up to 5 MB, MP4/3GP up to 16 MB, PDF up to 100 MB. The type is read from the bytes, not the name.',
  })
  @fileBody('file', 'JPEG, PNG, MP4, 3GP or PDF')
  async upload(@CurrentWorkspace() workspaceId: string, @Req() request: FastifyRequest): Promise<UploadedMediaDto> {
    return UploadedMediaDto.from(await this.uploads.uploadMedia(workspaceId, await multipartFile(request, 'file')));
  }

  @Post('upload-audio')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Upload Audio File',
    description: 'Any audio format up to 10 MB, stored as WAV 8 kHz mono 16-bit PCM; `durationMs` is that of the converted file.',
  })
  @fileBody('audioFile', 'Audio in any common format (MP3, WAV, OGG, M4A, AMR, ...)')
  async uploadAudio(@CurrentWorkspace() workspaceId: string, @Req() request: FastifyRequest): Promise<UploadedMediaDto> {
    return UploadedMediaDto.from(await this.uploads.uploadAudio(workspaceId, await multipartFile(request, 'audioFile')));
  }
}
