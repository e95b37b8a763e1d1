/**
 * @module hooks
 * tollgate's hook engine: one registry for the behaviours of FIM One, Omni, Amplifier, lionagi and PulseBot
 * hooks, a tool executor that runs calls through it, and the approval gate as one hook among the guards.
 */
export { HookRegistry, DEFAULT_PRIORITY, DEFAULT_HOOK_TIMEOUT_MS } from './registry.js';
export type {
  HookRegistryOptions,
  RegisterOptions,
  ChildRegistryOptions,
  HookRunInput,
  RegisteredHook,
} from './registry.js';
export { HOOK_POINTS, isBuiltinPoint } from './points.js';
export type { HookPointKind, HookPointSpec, HookDataField } from './points.js';
export { ACTION_PRECEDENCE, resolveActions, strongerAction } from './precedence.js';
export { InvalidHookResultError } from './result.js';
export { HookTimeoutError } from './invoke.js';
export { InjectionBudget, DEFAULT_MAX_INJECTION_BYTES, DEFAULT_MAX_TURN_BYTES } from './budgets.js';
export type { InjectionBudgetOptions } from './budgets.js';
export type { Contributor } from './contributions.js';
export { matchesWildcard, matchesAny } from '../utils/patterns.js';
export { stderrHookLogger } from './types.js';
export type {
  HookAction,
  HookPoint,
  BuiltinHookPoint,
  HookContext,
  HookResult,
  HookOutcome,
  HookHandler,
  HookFunction,
  HookObject,
  HookLogger,
  HookChatMessage,
  HookToolInfo,
  ApprovalAsk,
  ContextInjection,
  UserMessage,
} from './types.js';
export { ToolExecutor, TOOL_BLOCKED_POINT } from './executor.js';
export type {
  ToolExecutorOptions,
  ToolDefinition,
  ToolFunction,
  ToolTable,
  ToolCallContext,
  ToolGate,
  ExecuteOptions,
  ToolExecution,
} from './executor.js';
export { approvalGate, defaultIdempotencyKey } from './approval-gate.js';
export type { ApprovalGate, ApprovalGateOptions } from './approval-gate.js';
export { ApprovalBackendError } from '../client/approval-backend.js';
export type {
  ApprovalBackend,
  ApprovalRequestInput,
  ApprovalVerdict,
  ApprovalChannelTarget,
  ExecutionReceiptInput,
} from '../client/approval-backend.js';
export { gatewayBackend } from './gateway-backend.js';
export type { GatewayBackendOptions } from './gateway-backend.js';
export { remoteBackend, fromApiRequest } from '../client/remote-backend.js';
export { loadHookConfig, loadHookConfigFile } from './config.js';
export type { LoadHookConfigOptions, LoadedHooks, HookConfigEntry } from './config.js';
export { HookConfigError } from './config-errors.js';
export { interpolateEnv } from './interpolate.js';
export * from './builtin/index.js';
