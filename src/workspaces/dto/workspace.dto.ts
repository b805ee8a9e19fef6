import { IsString, MaxLength, MinLength } from 'class-validator';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import type { Workspace } from '../workspace.entity.js';

export class CreateWorkspaceDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
}

export class WorkspaceDto {
  id: string;
  name: string;
  /** ISO 8601 UTC. */
  creationTime: string;

  static from(workspace: Workspace): WorkspaceDto {
    return { id: workspace.id, name: workspace.name, creationTime: TimestampFormat.utc(workspace.creationTime) };
  }
}

export class CreatedWorkspaceDto extends WorkspaceDto {
  /** Standard Webhooks signing secret (`whsec_…`) for this workspace's outgoing webhooks. */
  webhookSecret: string;

  static fromCreated({ workspace, webhookSecret }: { workspace: Workspace; webhookSecret: string }): CreatedWorkspaceDto {
    return { ...WorkspaceDto.from(workspace), webhookSecret };
  }
}

export class WebhookSecretDto {
  /** The new signing secret; the previous one stays valid (and signed with) for 24 hours. */
  webhookSecret: string;

  static from(webhookSecret: string): WebhookSecretDto {
    return { webhookSecret };
  }
}
