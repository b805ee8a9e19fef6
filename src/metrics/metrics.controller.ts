import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../auth/public.decorator.js';

@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Public()
  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
