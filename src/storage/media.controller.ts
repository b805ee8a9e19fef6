import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { MediaStorage } from './media-storage.js';

/** Serves stored media without a token: voice and messaging providers fetch these URLs. */
@ApiExcludeController()
@Public()
@Controller('media')
export class MediaController {
  constructor(private readonly media: MediaStorage) {}

  @Get(':key/:fileName')
  async serve(
    @Param('key') key: string,
    @Param('fileName') fileName: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { statusCode, headers, body } = await this.media.respond(key, fileName, request.raw);
    void reply.code(statusCode).headers(headers).send(body);
  }
}
