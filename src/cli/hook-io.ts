/**
 * @module cli/hook-io
 * What every hook command (`tollgate claude-hook`, `tollgate hook <agent>`) reads and writes: its standard streams
 * (replaceable in tests) and the bounded read of the hook input on stdin. Import-free but for the fd-level streams:
 * it is part of the hook's one-file bundle.
 */
import { fdWriter, stdinChunks } from './sync-stdio.js';

/** Largest hook input read from stdin. */
export const MAX_INPUT_BYTES = 1024 * 1024;

/** The process streams a hook uses (replaceable in tests). */
export interface HookIo {
  stdin: AsyncIterable<Buffer | string>;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

/** The process's own streams, through their file descriptors (see `sync-stdio`). */
export function processIo(): HookIo {
  return { stdin: stdinChunks(), stdout: fdWriter(1), stderr: fdWriter(2), env: process.env };
}

/** All of stdin as text; throws past {@link MAX_INPUT_BYTES}. */
export async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`hook input is larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
