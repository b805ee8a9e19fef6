/** What one Cloud API error means for us: a stable code, a reason in our words, and whether trying again can help. */
export interface CloudErrorMeaning {
  errorCode: string;
  failureReason: string;
  retry: boolean;
}

interface Meaning {
  errorCode: string;
  reason: string;
  retry: boolean;
}

const RATE_LIMITED: Meaning = {
  errorCode: 'WhatsApp:RateLimited',
  reason: 'WhatsApp refused the message for now because a rate limit was reached.',
  retry: true,
};
const UNAVAILABLE: Meaning = {
  errorCode: 'WhatsApp:ProviderUnavailable',
  reason: 'The WhatsApp Cloud API failed or was unavailable.',
  retry: true,
};
const INVALID_RECIPIENT: Meaning = {
  errorCode: 'WhatsApp:InvalidRecipient',
  reason: 'The recipient cannot receive this message on WhatsApp.',
  retry: false,
};
const INVALID_PARAMETER: Meaning = {
  errorCode: 'WhatsApp:InvalidParameter',
  reason: 'WhatsApp refused a value of the message.',
  retry: false,
};
/** The code of a message refused because its recipient stopped marketing messages (Meta's 131050). */
export const RECIPIENT_OPTED_OUT = 'WhatsApp:RecipientOptedOut';

/** The code of a refused access token. */
export const UNAUTHORIZED = 'WhatsApp:Unauthorized';

const REFUSED_TOKEN: Meaning = {
  errorCode: UNAUTHORIZED,
  reason: "The channel's access token was refused: update the channel's WhatsApp credentials.",
  retry: false,
};
const TEMPLATE_MISMATCH: Meaning = {
  errorCode: 'WhatsApp:TemplateParametersMismatch',
  reason: 'The parameters do not match the approved template.',
  retry: false,
};

/**
 * Cloud API error codes (the `error.code` of a Graph API error, or of a failed status) by meaning.
 * Codes not listed are a generic provider error, retried only when the HTTP status says so.
 */
const MEANINGS = new Map<number, Meaning>([
  [
    131047,
    {
      errorCode: 'WhatsApp:ServiceWindowExpired',
      reason: 'More than 24 hours passed since the contact last wrote: only a template can be sent.',
      retry: false,
    },
  ],
  [
    131050,
    {
      errorCode: RECIPIENT_OPTED_OUT,
      reason: 'The recipient has chosen to stop receiving marketing messages on WhatsApp from this business.',
      retry: false,
    },
  ],
  [132000, TEMPLATE_MISMATCH],
  [132012, TEMPLATE_MISMATCH],
  // Graph API v23.0 and later: a template parameter Meta could not take.
  [132018, TEMPLATE_MISMATCH],
  [
    132001,
    { errorCode: 'WhatsApp:TemplateNotFound', reason: 'The template does not exist in this language, or is not approved.', retry: false },
  ],
  [
    132005,
    { errorCode: 'WhatsApp:TemplateTextTooLong', reason: 'The template text with its parameters filled in is too long.', retry: false },
  ],
  [
    132007,
    {
      errorCode: 'WhatsApp:TemplatePolicyViolation',
      reason: 'The template content breaks a WhatsApp format or policy rule.',
      retry: false,
    },
  ],
  [132015, { errorCode: 'WhatsApp:TemplatePaused', reason: 'The template is paused because of its low quality.', retry: false }],
  [132016, { errorCode: 'WhatsApp:TemplateDisabled', reason: 'The template is disabled.', retry: false }],
  [130429, RATE_LIMITED],
  [131056, RATE_LIMITED],
  [80007, RATE_LIMITED],
  [80008, RATE_LIMITED],
  [4, RATE_LIMITED],
  [131026, INVALID_RECIPIENT],
  [131030, INVALID_RECIPIENT],
  [131021, INVALID_RECIPIENT],
  [131009, INVALID_PARAMETER],
  [131008, INVALID_PARAMETER],
  [100, INVALID_PARAMETER],
  [190, REFUSED_TOKEN],
  [0, REFUSED_TOKEN],
  [10, REFUSED_TOKEN],
  [131000, UNAVAILABLE],
  [131016, UNAVAILABLE],
  [133004, UNAVAILABLE],
  [2, UNAVAILABLE],
  [1, UNAVAILABLE],
]);

/** The Cloud API could not be reached or did not answer in time. */
export function unreachable(message: string): CloudErrorMeaning {
  return {
    errorCode: 'WhatsApp:ProviderUnreachable',
    failureReason: `The WhatsApp Cloud API could not be reached (${message}).`,
    retry: true,
  };
}

/**
 * The meaning of a Cloud API failure. `httpStatus` is null for a failure reported in a status
 * notification. 429 and 5xx are always worth another try; another 4xx only for a rate-limit or
 * transient code.
 */
export function describeCloudError(httpStatus: number | null, code: number | undefined, message: string | undefined): CloudErrorMeaning {
  const known = code === undefined ? undefined : MEANINGS.get(code);
  const fallback: Meaning =
    httpStatus === 429
      ? RATE_LIMITED
      : httpStatus !== null && httpStatus >= 500
        ? UNAVAILABLE
        : httpStatus === 401
          ? REFUSED_TOKEN
          : { errorCode: 'WhatsApp:ProviderError', reason: 'WhatsApp refused the message.', retry: false };
  const meaning = known ?? fallback;
  const source = code !== undefined ? `Cloud API error ${code}` : httpStatus !== null ? `HTTP ${httpStatus}` : undefined;
  const detail = [source, message].filter(Boolean).join(': ');
  return {
    errorCode: meaning.errorCode,
    failureReason: detail ? `${meaning.reason} (${detail})` : meaning.reason,
    retry: httpStatus === 429 || (httpStatus !== null && httpStatus >= 500) || meaning.retry,
  };
}
