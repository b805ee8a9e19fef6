/**
 * Meta's pricing categories as status webhooks name them (`pricing.category`): the template categories,
 * their per-message variants (`marketing_lite` for MM Lite sends, `authentication_international`),
 * free-form replies (`service`) and the free entry-point window (`referral_conversion`).
 */
export const PRICING_CATEGORIES = [
  'marketing',
  'marketing_lite',
  'utility',
  'authentication',
  'authentication_international',
  'service',
  'referral_conversion',
] as const;
