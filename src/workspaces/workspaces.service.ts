import { Injectable } from '@nestjs/common';
import { pgError } from '../database/pg-errors.js';
import { SecretBox } from '../common/crypto/secret-box.js';
import { newWebhookSecret, WEBHOOK_SECRET_ROTATION_OVERLAP_MS } from '../common/crypto/webhook-secret.js';
import { newId } from '../common/id.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { CreateWorkspaceUserDto } from './dto/workspace-user.dto.js';
import type { Workspace } from './workspace.entity.js';
import type { WorkspaceUser } from './workspace-user.entity.js';
import { WorkspaceUsersRepository } from './workspace-users.repository.js';
import { WorkspacesRepository } from './workspaces.repository.js';
import { UserEmailTaken, WorkspaceNotFound } from './workspaces.errors.js';

/** Workspaces, their webhook signing secrets and their users. */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly users: WorkspaceUsersRepository,
    private readonly secrets: SecretBox,
  ) {}

  async create(name: string): Promise<{ workspace: Workspace; webhookSecret: string }> {
    const webhookSecret = newWebhookSecret();
    const workspace = await this.workspaces.save({
      id: newId(),
      name,
      webhookSecretSealed: this.secrets.seal(webhookSecret),
      previousWebhookSecretSealed: null,
      previousWebhookSecretExpiresAt: null,
    });
    return { workspace, webhookSecret };
  }

  list(paging: PagedRequestDto): Promise<PagedResult<Workspace>> {
    return this.workspaces.page(paging.skipCount, paging.maxResultCount);
  }

  async get(id: string): Promise<Workspace> {
    const workspace = await this.workspaces.findById(id);
    if (!workspace) throw WorkspaceNotFound(id);
    return workspace;
  }

  /** Whether a workspace of this name exists (the demo seed runs once). */
  existsNamed(name: string): Promise<boolean> {
    return this.workspaces.existsNamed(name);
  }

  /** Issues a new secret; the old one keeps being signed with for 24 h so receivers can switch over. */
  async rotateWebhookSecret(id: string): Promise<string> {
    const workspace = await this.get(id);
    const webhookSecret = newWebhookSecret();
    await this.workspaces.updateSecrets(id, {
      webhookSecretSealed: this.secrets.seal(webhookSecret),
      previousWebhookSecretSealed: workspace.webhookSecretSealed,
      previousWebhookSecretExpiresAt: new Date(Date.now() + WEBHOOK_SECRET_ROTATION_OVERLAP_MS),
    });
    return webhookSecret;
  }

  /** The secrets to sign with now: the current one, plus the previous one during a rotation. */
  async signingSecrets(id: string): Promise<string[]> {
    const workspace = await this.get(id);
    const secrets = [this.secrets.open(workspace.webhookSecretSealed)];
    if (workspace.previousWebhookSecretSealed && (workspace.previousWebhookSecretExpiresAt?.getTime() ?? 0) > Date.now()) {
      secrets.push(this.secrets.open(workspace.previousWebhookSecretSealed));
    }
    return secrets;
  }

  async addUser(workspaceId: string, input: CreateWorkspaceUserDto): Promise<WorkspaceUser> {
    await this.get(workspaceId);
    const user = this.users.create(workspaceId, {
      id: newId(),
      userId: newId(),
      email: input.email.toLowerCase(),
      name: input.name,
      role: input.role,
      logoUrl: input.logoUrl ?? null,
      isAiAgent: input.isAiAgent ?? false,
      phoneNumber: input.phoneNumber ?? null,
    });
    try {
      return await this.users.save(workspaceId, user);
    } catch (err) {
      if (pgError.is(err, 'unique')) throw UserEmailTaken(input.email);
      throw err;
    }
  }

  listUsers(workspaceId: string): Promise<WorkspaceUser[]> {
    return this.users.list(workspaceId);
  }

  /** The users and AI agents of these user ids (for records that name them). */
  findUsersByUserIds(workspaceId: string, userIds: readonly string[]): Promise<WorkspaceUser[]> {
    return this.users.findByUserIds(workspaceId, userIds);
  }

  /** A user (`isAiAgent` false) or an AI agent (true) of the workspace by its user id; null when there is none. */
  findUser(workspaceId: string, userId: string, isAiAgent: boolean): Promise<WorkspaceUser | null> {
    return this.users.findOne(workspaceId, { userId, isAiAgent });
  }
}
