/**
 * @module client
 * The HTTP client of tollgate: {@link GateClient} and what it throws.
 */
export {
  GateClient,
  type CancelInput,
  type DecisionInput,
  type GateClientOptions,
  type ListQuery,
  type ApiRequestPage,
  type RequestOptions,
  type WaitOptions,
} from './gate-client.js';
export type { WaitManyOptions } from './verdicts.js';
export { GateClientError, type ProblemDocument } from './errors.js';
export { Backoff, type BackoffOptions } from './backoff.js';
export { remoteBackend, fromApiRequest } from './remote-backend.js';
export { verdictProblem, type CallToRun, type VerdictKeys } from './verdict-check.js';
export {
  ApprovalBackendError,
  type ApprovalBackend,
  type ApprovalRequestInput,
  type ApprovalVerdict,
} from './approval-backend.js';
export type { ApiEvent, ApiRequest } from '../requests/serialize.js';
export type { CreateRequestInput } from '../api/api-schema.js';
