// Test helpers for the hook engine: a logger that remembers what it was told.
import type { HookLogger } from '../../../src/hooks/index.js';

export interface LoggedLine {
  level: 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export function memoryLogger(): HookLogger & { lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  return {
    lines,
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
  };
}
