import { NotFoundError, ValidationError, type ValidationErrorItem } from '../common/errors/domain-error.js';

export const FlowNotFound = (id: string) => new NotFoundError('OutboundIvr:FlowNotFound', `Outbound IVR flow '${id}' was not found.`);

export const FlowVersionNotFound = (id: string, version: number) =>
  new NotFoundError('OutboundIvr:FlowNotFound', `Version ${version} of outbound IVR flow '${id}' was not found.`);

export const InvalidFlow = (issues: ValidationErrorItem[]) =>
  new ValidationError('OutboundIvr:InvalidFlow', issues.map((item) => item.message).join(' '), { validationErrors: issues });
