/**
 * @module openai-agents
 * `tollgate/openai-agents`: tollgate approvals for OpenAI Agents JS (`@openai/agents`).
 */
export {
  RUN_STATE_METADATA_KEY,
  decideInterruptions,
  restoreRunState,
  runWithApprovals,
  type RunWithApprovalsOptions,
} from './approvals.js';
export type { FrameworkGateOptions } from '../gate.js';
