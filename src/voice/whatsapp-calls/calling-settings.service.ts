import { Injectable } from '@nestjs/common';
import type { CallHours, WhatsAppCallingSettings } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import { OutboundIvrFlowsService } from '../../outbound-ivr-flows/outbound-ivr-flows.service.js';
import { TemplatesService } from '../../whatsapp/templates/templates.service.js';
import { setCallingSettings } from './graph-calling.js';
import { CallingSettingsInvalid } from './whatsapp-calls.errors.js';

/** Calling on a WhatsApp channel (API.md §15): Meta's settings for the number, and the flows that answer users' calls. */
@Injectable()
export class CallingSettingsService {
  constructor(
    private readonly channels: ChannelsService,
    private readonly flows: OutboundIvrFlowsService,
    private readonly templates: TemplatesService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Checks everything (the hours, the flows, the permission template: one of the channel's synced
   * templates, APPROVED), then writes Meta's settings (cloud-api numbers), then stores them: a
   * refusal, ours or Meta's, leaves the stored settings as they were.
   */
  async set(workspaceId: string, channelId: string, settings: WhatsAppCallingSettings, actorId: string): Promise<WhatsAppCallingSettings> {
    const channel = await this.channels.get(workspaceId, channelId, 'whatsapp');
    if (settings.callHours) checkHours(settings.callHours);
    for (const member of ['inboundFlowId', 'afterHoursFlowId'] as const) {
      const flowId = settings[member];
      if (flowId) await this.flows.getCurrentVersion(workspaceId, flowId);
    }
    // Checked as Send Template checks the template it sends: stored for this channel and APPROVED.
    const template = settings.permissionTemplate;
    if (template) await this.templates.approved(channel, template.name, template.language, 'permissionTemplate');
    if (channel.whatsAppProvider === 'cloud-api') {
      const { accessToken } = this.channels.whatsAppCredentials(channel);
      await setCallingSettings(
        { graphUrl: this.config.whatsapp.graphUrl, phoneNumberId: channel.whatsAppPhoneNumberId ?? '', accessToken },
        settings,
      );
    }
    const saved = await this.channels.setWhatsAppCalling(workspaceId, channelId, settings, actorId);
    return saved.whatsAppCalling!;
  }
}

function checkHours(hours: CallHours): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: hours.timezoneId });
  } catch {
    throw CallingSettingsInvalid(`callHours.timezoneId '${hours.timezoneId}' is not an IANA time zone.`, 'callHours.timezoneId');
  }
  hours.weeklyOperatingHours.forEach((day, i) => {
    if (day.openTime >= day.closeTime)
      throw CallingSettingsInvalid(
        `callHours.weeklyOperatingHours[${i}]: ${day.dayOfWeek} closes (${day.closeTime}) before it opens (${day.openTime}).`,
        `callHours.weeklyOperatingHours[${i}].closeTime`,
      );
  });
  hours.holidaySchedule.forEach((day, i) => {
    if (Number.isNaN(Date.parse(`${day.date}T00:00:00Z`)))
      throw CallingSettingsInvalid(
        `callHours.holidaySchedule[${i}].date '${day.date}' is not a date.`,
        `callHours.holidaySchedule[${i}].date`,
      );
    if (day.startTime >= day.endTime)
      throw CallingSettingsInvalid(
        `callHours.holidaySchedule[${i}]: the closed stretch ends (${day.endTime}) before it starts (${day.startTime}).`,
        `callHours.holidaySchedule[${i}].endTime`,
      );
  });
}
