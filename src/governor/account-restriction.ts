/** Meta's restriction of business-initiated messaging on an account (`account_update` ACCOUNT_RESTRICTION). */
export const BUSINESS_INITIATED_RESTRICTED = 'RESTRICTED_BIZ_INITIATED_MESSAGING';

/** The restriction of a banned account (Meta's DISABLED_UPDATE with ban state DISABLE), lifted only by its REINSTATE. */
export const ACCOUNT_DISABLED = 'DISABLED';
