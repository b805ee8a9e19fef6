import { ApiProperty } from '@nestjs/swagger';
import { PhoneNumberField } from '../../common/phone/phone-number.js';

/** A simulated WhatsApp user calling a sandbox number (API.md §15). */
export class SandboxUserCallDto {
  @PhoneNumberField('The calling WhatsApp user: an international number, digits only or with a leading +.')
  fromNumber: string;
}

export class SandboxUserCallResponseDto {
  /** The simulated WhatsApp call id. */
  @ApiProperty({ example: 'SBwacid.HBgLMTQxNTU1NTAxMDAVAgARGBI' }) callId: string;
  /**
   * The inbound IVR record running the channel's inbound (or after-hours) flow; null when the call
   * was rejected because no flow answers at this hour.
   */
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) outboundIvrRequestId: string | null;
}
