/**
 * @module agents
 * Every coding agent's adapter by kind (`tollgate hook <agent>`). Claude Code's is `tollgate claude-hook`
 * (`agents/claude.ts`), which `tollgate hook claude` runs.
 */
import { clineAdapter } from './cline.js';
import { codexAdapter } from './codex.js';
import { copilotAdapter } from './copilot.js';
import { cursorAdapter } from './cursor.js';
import { geminiAdapter } from './gemini.js';
import { opencodeAdapter } from './opencode.js';
import { qwenAdapter } from './qwen.js';
import type { AgentAdapter } from './types.js';

/** The adapters `tollgate hook` runs, by agent kind. */
export const AGENT_ADAPTERS: Readonly<Record<AgentAdapter['kind'], AgentAdapter>> = {
  codex: codexAdapter,
  gemini: geminiAdapter,
  qwen: qwenAdapter,
  opencode: opencodeAdapter,
  cline: clineAdapter,
  copilot: copilotAdapter,
  cursor: cursorAdapter,
};
