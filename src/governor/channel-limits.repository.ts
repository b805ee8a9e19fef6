import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { QueryDeepPartialEntity, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { ChannelLimits, type Limits, type Restriction, type TiersSetBy } from './channel-limits.entity.js';

@Injectable()
export class ChannelLimitsRepository extends WorkspaceScopedRepository<ChannelLimits> {
  constructor(@InjectRepository(ChannelLimits) repository: Repository<ChannelLimits>) {
    super(repository);
  }

  /** The channel's row, or null (the defaults). */
  ofChannel(workspaceId: string, channelId: string): Promise<ChannelLimits | null> {
    return this.findOne(workspaceId, { channelId });
  }

  /** Writes every tier of the channel, who set them, the quality Meta last reported and Meta's restriction. */
  async put(
    workspaceId: string,
    channelId: string,
    limits: Limits,
    setBy: TiersSetBy,
    qualityRating: string | null,
    restriction: Restriction | null,
  ): Promise<void> {
    this.scope(workspaceId);
    const row = {
      workspaceId,
      channelId,
      ...limits,
      setBy,
      qualityRating,
      restriction: restriction?.reason ?? null,
      restrictionEndsAt: restriction?.endsAt ?? null,
      lastModificationTime: new Date(),
    } as QueryDeepPartialEntity<ChannelLimits>;
    await this.repository.upsert(row, { conflictPaths: ['channelId'], skipUpdateIfNoValuesChanged: false });
  }

  /** Serialises, until the caller's transaction ends, every read-and-write of this channel's tiers (an operator's PUT, Meta's webhooks). */
  async lockChannel(workspaceId: string, channelId: string): Promise<void> {
    this.scope(workspaceId);
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`channel-limits:${channelId}`]);
  }
}
