/**
 * @module channels/web
 * The built-in web channel: the inbox, request pages with decision forms, and the audit page under `/ui`.
 */
export { createWebChannel, isWebChannel, webLoginMessage, type WebChannel } from './web-channel.js';
export { webOptionsFromConfig, webConfigSchema, type WebChannelOptions } from './web-config.js';
export { hashPassword, verifyPassword, type WebUser } from './auth.js';
export { html, escapeHtml, SafeHtml } from './html.js';
// Not OidcClient: it loads openid-client, which `channels/index.ts` imports only when OIDC is configured.
export { OidcSignInError } from './oidc/errors.js';
export { oidcOptionsFrom, type OidcOptions } from './oidc/config.js';
