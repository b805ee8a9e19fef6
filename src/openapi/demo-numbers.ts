/**
 * Phone numbers of the request examples, one per role so that running one example does not spoil
 * another (a contact created twice is a 409), and none the README's walkthrough uses (966501234567,
 * 966501110001-2).
 */
export const DEMO_NUMBERS = {
  /** Writes first through the sandbox (Inject Sandbox Inbound Message), then gets the free-form sends. */
  sandboxCustomer: '966550100002',
  /** Create Contact's new contact. */
  newContact: '+966 55 010 0001',
  /** Gets Send Template's template, cold (no service window needed). */
  templateRecipient: '966550100003',
  /** Create Outbound IVR's callee. */
  callee: '966550100004',
  /** Create Conversation's customer. */
  newConversation: '966550100005',
  /** Says STOP through the sandbox (Inject Sandbox User Preference). */
  optingOut: '966550100006',
} as const;
