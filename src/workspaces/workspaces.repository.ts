import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { boundToCurrent } from '../database/workspace-scoped.repository.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { Workspace } from './workspace.entity.js';

export type WorkspaceSecrets = Pick<Workspace, 'webhookSecretSealed' | 'previousWebhookSecretSealed' | 'previousWebhookSecretExpiresAt'>;

/** Workspaces themselves: not workspace-owned rows, so a plain repository (operators' routes and the webhook signer read them). */
@Injectable()
export class WorkspacesRepository {
  constructor(@InjectRepository(Workspace) private readonly base: Repository<Workspace>) {}

  private get repository(): Repository<Workspace> {
    return boundToCurrent(this.base);
  }

  save(workspace: Omit<Workspace, 'creationTime'>): Promise<Workspace> {
    return this.repository.save(workspace);
  }

  /** Oldest first. */
  page(skip: number, take: number): Promise<PagedResult<Workspace>> {
    const qb = this.repository.createQueryBuilder('w').orderBy('w.creation_time', 'ASC').addOrderBy('w.id', 'ASC');
    return pageWithTotal(qb, skip, take);
  }

  findById(id: string): Promise<Workspace | null> {
    return this.repository.findOne({ where: { id } });
  }

  existsNamed(name: string): Promise<boolean> {
    return this.repository.exists({ where: { name } });
  }

  async updateSecrets(id: string, secrets: WorkspaceSecrets): Promise<void> {
    await this.repository.update({ id }, secrets);
  }
}
