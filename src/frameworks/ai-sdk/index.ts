/**
 * @module ai-sdk
 * `tollgate/ai-sdk`: tollgate approvals for the Vercel AI SDK (`ai` 6 or 7).
 */
export {
  approvalResponses,
  type AiSdkApprovalMessage,
  type AiSdkApprovalRequestPart,
  type AiSdkApprovalResponsePart,
} from './approvals.js';
export type { FrameworkGateOptions } from '../gate.js';
