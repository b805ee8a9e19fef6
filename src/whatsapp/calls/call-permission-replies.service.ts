import { Injectable } from '@nestjs/common';
import { WhatsAppCallPermissions } from '../../contacts/whatsapp-call-permissions.service.js';
import { OutboundIvrService } from '../../outbound-ivr/outbound-ivr.service.js';

/**
 * A WhatsApp user's answer to a number's call permission request (API.md §15): kept as their
 * permission for that number, and the calls that waited for it are placed or end PermissionDenied.
 */
@Injectable()
export class CallPermissionReplies {
  constructor(
    private readonly permissions: WhatsAppCallPermissions,
    private readonly ivr: OutboundIvrService,
  ) {}

  async received(
    workspaceId: string,
    channelId: string,
    userNumber: string,
    reply: { granted: boolean; permanent: boolean; expiresAt: Date | null },
    at: Date,
  ): Promise<void> {
    // A late or repeated reply (a newer answer is recorded) changes no waiting call either.
    if (await this.permissions.answer(workspaceId, channelId, userNumber, { ...reply, at }))
      await this.ivr.permissionAnswered(workspaceId, channelId, userNumber, reply.granted);
  }
}
