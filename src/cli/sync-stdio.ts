/**
 * @module cli/sync-stdio
 * Standard input and output through their file descriptors, for a command whose start-up is its cost
 * (`tollgate claude-hook`, a fresh `node` per tool call): the first touch of `process.stdin` or `process.stdout` on a
 * pipe builds a socket stream for it, several milliseconds of module loading and set-up on every call. Reading fd 0
 * and writing fd 1 / 2 directly skips that; where the descriptor cannot be used that way (a non-blocking pipe
 * answering EAGAIN, a closed descriptor), the rest goes through the process stream as before.
 */
import { readSync, writeSync } from 'node:fs';

const CHUNK_BYTES = 64 * 1024;

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Standard input, chunk by chunk until its end: read from fd 0, or from `process.stdin` once fd 0 cannot be read directly. */
export async function* stdinChunks(): AsyncGenerator<Buffer> {
  for (;;) {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let read: number;
    try {
      read = readSync(0, buffer, 0, CHUNK_BYTES, null);
    } catch (error) {
      if (code(error) === 'EOF') return; // Windows' word for the end of a pipe
      break; // EAGAIN (non-blocking), EBADF, …: the stream knows how to wait, or that there is nothing
    }
    if (read === 0) return;
    yield buffer.subarray(0, read);
  }
  for await (const chunk of process.stdin) yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
}

/** A writer for fd 1 or 2: writes directly, handing what is left (and all later writes) to the process stream once the descriptor will not take it. */
export function fdWriter(fd: 1 | 2): { write(s: string): void } {
  let direct = true;
  return {
    write(s: string) {
      const data = Buffer.from(s);
      let written = 0;
      while (direct && written < data.length) {
        try {
          written += writeSync(fd, data, written);
        } catch {
          // A full non-blocking pipe (EAGAIN): the stream queues the rest, and node waits for it before exiting. Any
          // other failure is the stream's to report, as it was before this writer.
          direct = false;
        }
      }
      if (written < data.length) (fd === 1 ? process.stdout : process.stderr).write(data.subarray(written));
    },
  };
}
