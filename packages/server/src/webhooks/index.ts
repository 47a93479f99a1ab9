/** Webhooks (docs/contributors/decisions.md §6): the dispatcher that delivers the outbox, and what it sends. */
export { WebhookDispatcher } from './dispatcher.js';
export { notificationsBody, signature, USER_AGENT, type Notification } from './payload.js';
