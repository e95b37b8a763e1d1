/**
 * The tool calls the real coding-agent CLIs filed with the gateway in test/agents (their hooks' `tool_name` and
 * `tool_args`, copied from the stored requests), so the summarizer contract holds the shapes the agents really send
 * without running the CLIs. Captured 2026-12-01 from the pinned CLIs of test/agents/install.ts, each asked by its fake
 * model to run `echo approved > ran.txt` (the `description` is the fake model's, passed on as the CLI got it).
 */

/** One agent's shell call as its hook filed it. */
export interface CapturedShape {
  agent: string;
  toolName: string;
  args: Record<string, unknown>;
}

const command = 'echo approved > ran.txt';
const described = { command, description: 'the scripted command' };

/** Every real CLI's shell call (test/agents/*.test.ts, the approve scenario). */
export const CAPTURED_SHELL_SHAPES: readonly CapturedShape[] = [
  { agent: 'Claude Code 2.1.332', toolName: 'Bash', args: described },
  // Codex's PreToolUse hook names its shell tool `Bash` and passes the command alone.
  { agent: 'Codex CLI 0.171.0', toolName: 'Bash', args: { command } },
  { agent: 'Gemini CLI 0.61.0', toolName: 'run_shell_command', args: described },
  { agent: 'Qwen Code 0.24.4', toolName: 'run_shell_command', args: described },
  { agent: 'Cline CLI 3.0.65', toolName: 'run_commands', args: described },
  { agent: 'Copilot CLI 1.0.102', toolName: 'bash', args: described },
  { agent: 'OpenCode 1.18.33', toolName: 'bash', args: described },
];

/**
 * Real CLIs' edit calls as their hooks filed them (test/agents/edit-scenario.ts, run by each agent's test: the fake
 * model asks to replace one line of `notes.txt`), the project's path moved to `/repo`. Captured 2026-12-02.
 */
export const CAPTURED_EDIT_SHAPES: readonly CapturedShape[] = [
  {
    agent: 'Claude Code 2.1.332',
    toolName: 'Edit',
    // The model asked without `replace_all`; Claude Code files the call with its default.
    args: { file_path: '/repo/notes.txt', old_string: 'beta\n', new_string: 'delta\n', replace_all: false },
  },
  {
    // Offered no apply_patch tool (a model without Codex metadata), the model sends the patch through the shell tool;
    // Codex applies it itself and its hook files it as `Bash`.
    agent: 'Codex CLI 0.171.0',
    toolName: 'Bash',
    args: {
      command:
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+delta\n gamma\n*** End Patch\nEOF\n",
    },
  },
  {
    agent: 'Cline CLI 3.0.65',
    toolName: 'editor',
    args: { path: '/repo/notes.txt', old_text: 'beta\n', new_text: 'delta\n' },
  },
  {
    agent: 'Copilot CLI 1.0.102',
    toolName: 'edit',
    args: { path: '/repo/notes.txt', old_str: 'beta\n', new_str: 'delta\n' },
  },
  {
    agent: 'Gemini CLI 0.61.0',
    toolName: 'replace',
    args: {
      file_path: '/repo/notes.txt',
      instruction: 'Rename beta to delta.',
      old_string: 'beta\n',
      new_string: 'delta\n',
    },
  },
  {
    agent: 'OpenCode 1.18.33',
    toolName: 'edit',
    args: { filePath: '/repo/notes.txt', oldString: 'beta\n', newString: 'delta\n' },
  },
  {
    agent: 'Qwen Code 0.24.4',
    toolName: 'edit',
    args: { file_path: '/repo/notes.txt', old_string: 'beta\n', new_string: 'delta\n' },
  },
];
