import { ValidationError } from '../common/errors/domain-error.js';

export const MAX_TTS_TEXT_LENGTH = 5000;

export const InvalidTtsText = () =>
  new ValidationError('Speech:InvalidText', `Text to speak must have 1 to ${MAX_TTS_TEXT_LENGTH} characters.`, {
    validationErrors: [{ message: `ttsText must have 1 to ${MAX_TTS_TEXT_LENGTH} characters.`, members: ['ttsText'] }],
  });
