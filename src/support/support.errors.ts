import { DomainError, ErrorKind, ValidationError } from '../common/errors/domain-error.js';

// Refused while the body may still be arriving: closing the connection stops the client sending the rest.
const STOP_READING = { headers: { connection: 'close' } };

export const FileRequired = (field: string) =>
  new ValidationError('Support:FileRequired', `Send the file as multipart/form-data in the field '${field}'.`, {
    validationErrors: [{ message: `The field '${field}' is required.`, members: [field] }],
    ...STOP_READING,
  });
export const EmptyFile = () => new ValidationError('Support:EmptyFile', 'The file is empty.');
export const MalformedUpload = () =>
  new ValidationError('Support:MalformedUpload', 'The multipart body is malformed or ended before the file was complete.', STOP_READING);
export const FileTooLarge = (limitBytes: number, what: string) =>
  new DomainError(
    'Support:FileTooLarge',
    `The file is larger than ${formatMegabytes(limitBytes)}, the limit for ${what}.`,
    ErrorKind.PayloadTooLarge,
    STOP_READING,
  );
export const UnsupportedMediaType = (message: string) =>
  new DomainError('Support:UnsupportedMediaType', message, ErrorKind.UnsupportedMediaType, STOP_READING);
export const ConversionTimedOut = (seconds: number) =>
  new DomainError('Support:ConversionTimedOut', `The audio could not be converted within ${seconds} s.`, ErrorKind.Unprocessable);

export function formatMegabytes(bytes: number): string {
  return `${bytes / (1024 * 1024)} MB`;
}
