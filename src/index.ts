/**
 * @module tollgate
 * The library entry: the gateway and its contracts, the hook engine with the approval gate, and the HTTP client.
 *
 * @example
 * import { HookRegistry, ToolExecutor, approvalGate, GateClient } from 'tollgate';
 */
export { Gateway } from './gateway/gateway.js';
export type { GatewayDefaults, GatewayObserver, GatewayOptions, NewRequestInput } from './gateway/gateway.js';
export { compileWhen, emptyPolicy, loadPolicy, matchPolicy, ExpressionError } from './policy/index.js';
export type { Policy, PolicyDecision, PolicyFacts, PolicyMatch, PolicyRule } from './policy/index.js';
export { PolicyGate } from './policy/gate.js';
export type { Grant, GrantStore, NewGrant } from './policy/grants.js';
export { SqliteGrantStore } from './stores/sqlite/grant-store.js';
export { createServer } from './server.js';
export type { ServerOptions, TollgateServer } from './server.js';
export { loadConfig, readConfigFile } from './config.js';
export type { ConfigFile, ServeFlags, TollgateConfig } from './config.js';
export { PermanentChannelError, RateLimitedError, REJECTION_MESSAGES } from './channel/channel.js';
export type {
  CardRef,
  Channel,
  ChannelHost,
  DecideOutcome,
  DecisionActor,
  DecisionEvent,
  DecisionRejection,
  DecisionSink,
} from './channel/channel.js';
export { cardText, maskSecrets, outcomeText, previewArgs } from './channel/card.js';
export type { CardText, CardTextOptions } from './channel/card.js';
export { LocalChangeFeed } from './lifecycle/change-feed.js';
export type { ChangeFeed, RequestChange } from './lifecycle/change-feed.js';
export { ManualClock, systemClock } from './utils/clock.js';
export type { Clock, ClockTimer } from './utils/clock.js';
export {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  TollgateError,
  UnauthorizedError,
  ValidationError,
} from './api/errors.js';
export type { FieldProblem } from './api/errors.js';
export { signCallback } from './gateway/callback-job.js';
export { createRequestSchema, decisionSchema, listQuerySchema } from './api/api-schema.js';
export type { CreateRequestBody, CreateRequestInput, DecisionBody } from './api/api-schema.js';
export { argsSha256, canonicalJson } from './requests/args-hash.js';
export { applyMigrations, openDatabase } from './stores/sqlite/database.js';
export { SqliteConfirmationStore } from './stores/sqlite/store.js';
export type { ConfirmationStore, RequestPage, RequestQuery, Vote, VoteResult } from './requests/store.js';
export { toApiEvent, toApiRequest } from './requests/serialize.js';
export type { ApiEvent, ApiRequest } from './requests/serialize.js';
export { isAllowed, isFinal, nextStatus } from './requests/state-machine.js';
export { EVENT_TYPES, REQUEST_STATUSES } from './requests/types.js';
export type {
  ChannelMessage,
  ChannelTarget,
  ConfirmationEvent,
  ConfirmationRequest,
  Decision,
  EventType,
  RequestStatus,
  TimeoutPolicy,
} from './requests/types.js';
export { InProcessScheduler } from './scheduler/in-process.js';
export { JobFailedPermanentlyError, JobNotNeededError, RetryLaterError } from './scheduler/types.js';
export type { JobAttempt, Scheduler, SchedulerJobs, SchedulerOptions } from './scheduler/types.js';
export * from './hooks/index.js';
export * from './client/index.js';
export {
  integrationsPlugin,
  claudeHookOutput,
  parseClaudeHookInput,
  pulsebotVerdict,
  verdictOf,
} from './integrations/index.js';
export type {
  ClaudeHookInput,
  ClaudeHookOutput,
  IntegrationsPluginOptions,
  PulsebotHookBody,
  PulsebotVerdict,
  Verdict,
} from './integrations/index.js';
export type { HttpPlugin, HttpPluginContext } from './http/app.js';
