/**
 * @module integrations
 * Runtime integrations: Claude Code's PreToolUse / PermissionRequest hooks and PostToolUse receipts, PulseBot's webhook hook, and the HTTP plugin serving both.
 */
export { integrationsPlugin, type IntegrationsPluginOptions } from './plugin.js';
export {
  CLAUDE_CODE_AGENT_ID,
  claudeCodeRequest,
  claudeHookDeny,
  decisionEventOf,
  claudeHookInputSchema,
  claudeHookOutput,
  claudeIdempotencyKey,
  parseClaudeHookInput,
  type ClaudeHookInput,
  type ClaudeDecisionEvent,
  type ClaudeHookOutput,
  type PermissionRequestOutput,
  type PreToolUseOutput,
} from './claude-code.js';
export { CLAUDE_HOOK_DEFAULT_WAIT_S, CLAUDE_HOOK_EVENTS, isPostToolEvent } from './claude-code-events.js';
export { claudeReceipt, type ClaudeReceipt } from './claude-code-receipt.js';
export {
  PULSEBOT_AGENT_ID,
  parsePulsebotHook,
  pulsebotHookSchema,
  pulsebotRequest,
  pulsebotVerdict,
  type PulsebotHookBody,
  type PulsebotVerdict,
} from './pulsebot.js';
export { verdictOf, type Verdict } from './verdict.js';
export { parseRequestOptions, type GateRequestOptions, type RawRequestOptions } from './request-options.js';
