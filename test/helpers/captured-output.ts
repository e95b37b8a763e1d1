/**
 * Runs a CLI command in-process and keeps what it wrote to stdout and stderr (restored after, whatever happens).
 */
import { vi } from 'vitest';

/** What a command answered: its exit code and its output. */
export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` with stdout and stderr captured. */
export async function capturedOutput(command: () => Promise<number>): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await command(), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
