/**
 * A contact's consent (API.md §13): to WhatsApp marketing messages and to calls, each Unknown,
 * OptedIn or OptedOut, with when and how it was last set. Kept on the contact's row.
 */

export const CONSENT_STATUSES = ['Unknown', 'OptedIn', 'OptedOut'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** How a consent was set: the API, a stop/start word the contact wrote, the provider (Meta's opt-out or error 131050), an import. */
export const CONSENT_SOURCES = ['Api', 'Keyword', 'Provider', 'Import'] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/** The two consents a contact has. */
export const CONSENT_KINDS = ['whatsAppMarketing', 'calls'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/** One consent as it stands: while Unknown, `at` and `source` are null. */
export interface ConsentState {
  status: ConsentStatus;
  at: Date | null;
  source: ConsentSource | null;
}

/** A change asked of one consent. */
export interface ConsentChange {
  status: ConsentStatus;
  source: ConsentSource;
  /** When it happened (a provider's timestamp); now by default. */
  at?: Date;
  /**
   * Only when the consent was not set after `at` (a late or redelivered provider notification
   * does not undo a newer choice).
   */
  onlyIfNewer?: boolean;
}

export type ConsentPatch = Partial<Record<ConsentKind, ConsentChange>>;

/** The contact history's property name of each consent. */
export const CONSENT_HISTORY_NAME: Record<ConsentKind, string> = {
  whatsAppMarketing: 'WhatsAppMarketingConsent',
  calls: 'CallConsent',
};

/** The contact's columns of each consent. */
export const CONSENT_FIELDS = {
  whatsAppMarketing: {
    status: 'whatsAppMarketingConsent',
    at: 'whatsAppMarketingConsentAt',
    source: 'whatsAppMarketingConsentSource',
  },
  calls: { status: 'callConsent', at: 'callConsentAt', source: 'callConsentSource' },
} as const;

/** The SQL columns (alias `c`) of each consent's status. */
export const CONSENT_STATUS_COLUMN: Record<ConsentKind, string> = {
  whatsAppMarketing: 'whats_app_marketing_consent',
  calls: 'call_consent',
};
