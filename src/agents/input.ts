/**
 * @module agents/input
 * Reading fields of a hook input without zod (the hook's bundle must stay small): each reader names the field it
 * expected when the input has something else, so a malformed input is refused with words that say what is wrong.
 */
import { AgentInputError, type AgentToolCall } from './types.js';

/** Longest string field read (a command, a path). */
const MAX_TEXT = 100_000;

/** A JSON object, or {@link AgentInputError} naming `field`. */
export function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new AgentInputError(`${field}: expected an object`);
  return value as Record<string, unknown>;
}

/** A non-empty string, or {@link AgentInputError} naming `field`. */
export function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value) throw new AgentInputError(`${field}: expected a non-empty string`);
  if (value.length > MAX_TEXT) throw new AgentInputError(`${field}: longer than ${MAX_TEXT} characters`);
  return value;
}

/** A string when there is one (absent, null or not a string: null). */
export function optionalText(value: unknown): string | null {
  return typeof value === 'string' && value ? value.slice(0, 4000) : null;
}

/** The first string of an array (`workspace_roots[0]`), or null. */
export function firstText(value: unknown): string | null {
  return Array.isArray(value) ? optionalText(value[0]) : null;
}

/** Arguments sent as an object, or as JSON text of one (Copilot CLI's `toolArgs`); anything else names `field`. */
export function argsObject(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') {
    try {
      return object(JSON.parse(value), field);
    } catch (error) {
      throw error instanceof AgentInputError ? error : new AgentInputError(`${field}: expected a JSON object`);
    }
  }
  return object(value, field);
}

/** The call in a Claude-style hook input (`tool_name`, `tool_input`, `session_id`, `cwd`, `model`, `tool_use_id`): Codex, Qwen Code. */
export function claudeStyleCall(input: Record<string, unknown>): AgentToolCall {
  const toolUseId = optionalText(input.tool_use_id);
  return {
    tool_name: text(input.tool_name, 'tool_name'),
    tool_args: object(input.tool_input ?? {}, 'tool_input'),
    session_id: optionalText(input.session_id),
    cwd: optionalText(input.cwd),
    model: optionalText(input.model),
    ...(toolUseId ? { tool_call_id: toolUseId } : {}),
  };
}
