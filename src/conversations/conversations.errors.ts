import { ConflictError, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

export const ConversationNotFound = (id: string) =>
  new NotFoundError('Conversations:ConversationNotFound', `Conversation '${id}' was not found.`);
export const UserNotFound = (id: string) =>
  new NotFoundError('Conversations:UserNotFound', `User '${id}' was not found in this workspace.`);
export const AiAgentNotFound = (id: string) =>
  new NotFoundError('Conversations:AiAgentNotFound', `AI agent '${id}' was not found in this workspace.`);
export const BothAssignees = () =>
  new ValidationError('Conversations:BothAssignees', 'Assign a user or an AI agent, not both.', {
    validationErrors: [{ message: 'Assign a user or an AI agent, not both.', members: ['assignedUserId', 'assignedAiAgentId'] }],
  });
export const AnotherConversationOpen = () =>
  new ConflictError('Conversations:AnotherOpen', 'Another conversation of this contact is already open on this channel.');
