/**
 * @module channels/email
 * The email channel's public surface. The composition root builds it with `emailOptionsFromEnv(config.env)` (null
 * when email is not configured) and `createEmailChannel`.
 */
export { EmailChannel, createEmailChannel } from './email-channel.js';
export { LinkSigner, type LinkClaims, type LinkProblem } from './links.js';
export { approvalMail, finalMail, type MailContent, type MailLinks } from './mail.js';
export { emailOptionsFromEnv, senderAddress, shownSmtpUrl, type EmailChannelOptions } from './options.js';
export { EVERY_APPROVER, approverAddresses, formatMessageRef, parseMessageRef, recipientsOf } from './recipients.js';
export { EMAIL_LINK_PATH, FORM_COOKIE } from './routes.js';
export { toChannelError } from './smtp-errors.js';
