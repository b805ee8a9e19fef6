import { NotFoundError, ValidationError } from '../../common/errors/domain-error.js';

const invalid = (code: string, message: string, member: string) =>
  new ValidationError(code, message, { validationErrors: [{ message, members: [member] }] });

export const InvalidCurrency = (currency: string) =>
  invalid('WhatsApp:InvalidCurrency', `'${currency}' is not an ISO 4217 currency code (such as EUR, USD, BRL).`, 'currency');
export const UnknownPricingCategory = (category: string, known: readonly string[]) =>
  invalid(
    'WhatsApp:UnknownPricingCategory',
    `'${category}' is not a WhatsApp pricing category; use ${known.join(', ')}.`,
    `perCategory.${category}`,
  );
export const InvalidPrice = (category: string) =>
  invalid(
    'WhatsApp:InvalidPrice',
    `The price of '${category}' must be a number of at least 0 (and below 1000).`,
    `perCategory.${category}`,
  );
export const EmptyRateCard = () => invalid('WhatsApp:InvalidPrice', 'perCategory must price at least one category.', 'perCategory');
export const RateCardNotFound = () => new NotFoundError('WhatsApp:RateCardNotFound', 'This workspace has no rate card.');
/** `from` after `to`, or a range longer than the usage query reads. */
export const InvalidUsageRange = (message: string) => invalid('WhatsApp:InvalidUsageRange', message, 'from');
