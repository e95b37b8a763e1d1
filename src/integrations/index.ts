/**
 * @module integrations
 * Runtime integrations: Claude Code's PreToolUse hook, PulseBot's webhook hook, and the HTTP plugin serving both.
 */
export { integrationsPlugin, type IntegrationsPluginOptions } from './plugin.js';
export {
  CLAUDE_CODE_AGENT_ID,
  CLAUDE_HOOK_DEFAULT_WAIT_S,
  claudeCodeRequest,
  claudeHookInputSchema,
  claudeHookOutput,
  claudeIdempotencyKey,
  parseClaudeHookInput,
  type ClaudeHookInput,
  type ClaudeHookOutput,
} from './claude-code.js';
export { PULSEBOT_AGENT_ID, parsePulsebotHook, pulsebotHookSchema, pulsebotRequest, pulsebotVerdict, type PulsebotHookBody, type PulsebotVerdict } from './pulsebot.js';
export { verdictOf, type Verdict } from './verdict.js';
export { parseRequestOptions, type GateRequestOptions, type RawRequestOptions } from './request-options.js';
