import { ConflictError, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

export const CampaignNotFound = (id: string) => new NotFoundError('Campaigns:CampaignNotFound', `Campaign '${id}' was not found.`);

/** A state-machine move the campaign's status does not allow (API.md §13): 409. */
export const IllegalCampaignTransition = (action: string, status: string) =>
  new ConflictError('Campaigns:IllegalTransition', `A ${status} campaign cannot ${action}.`);

export const InvalidCampaign = (message: string, member: string) =>
  new ValidationError('Campaigns:InvalidCampaign', message, { validationErrors: [{ message, members: [member] }] });
