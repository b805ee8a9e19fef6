import { NotFoundError } from '../common/errors/domain-error.js';

export const MediaNotFound = () => new NotFoundError('Media:NotFound', 'The media file was not found.');
