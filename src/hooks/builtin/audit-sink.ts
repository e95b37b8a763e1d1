/**
 * @module hooks/builtin/audit-sink
 * Where `audit_log` writes. In memory by default (read it back from `entries`), or a JSON-lines file.
 * No logger is involved on purpose: an audit trail is data, not diagnostics.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One recorded tool call event. */
export interface AuditEntry {
  /** ISO-8601 UTC time of the event. */
  at: string;
  /** `call` (tool:pre), `result` (tool:post), `error` (tool:error) or `blocked` (tool:blocked). */
  event: 'call' | 'result' | 'error' | 'blocked';
  tool_name: string | null;
  tool_call_id: string | null;
  session_id: string | null;
  agent_id: string | null;
  user_id: string | null;
  args?: unknown;
  result?: unknown;
  error?: string;
  reason?: string;
}

/** Receives audit entries. */
export interface AuditSink {
  write(entry: AuditEntry): void | Promise<void>;
}

/** Keeps entries in an array. */
export class MemoryAuditSink implements AuditSink {
  /** Everything written, oldest first. */
  readonly entries: AuditEntry[] = [];

  write(entry: AuditEntry): void {
    this.entries.push(entry);
  }
}

/** Appends one JSON line per entry to a file, creating its folder. Writes are serialized so lines never interleave. */
export class FileAuditSink implements AuditSink {
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  write(entry: AuditEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const written = this.chain.then(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      await appendFile(this.file, line, 'utf8');
    });
    // One failed write must not poison the ones after it.
    this.chain = written.catch(() => undefined);
    return written;
  }
}
