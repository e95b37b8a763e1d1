/**
 * A login link is handed out only once the shared mark behind it is stored, so a replica other than the one that
 * minted it can spend it the moment anyone sees it (a clean-clone CI run once printed a link whose mark was still on
 * its way to PostgreSQL, and the other replica refused it). A failed write is an error, never a dead link.
 */
import { describe, expect, it } from 'vitest';
import { WebAuth } from '../../../channels/web/auth.js';
import type { MarkKind, SharedMarks } from '../../../src/contracts/shared-marks.js';

/** Marks in one map shared by several `WebAuth`s (the replicas), whose writes land only when the test lets them. */
class HeldMarks implements SharedMarks {
  readonly rows = new Map<string, number>();
  private held: Array<() => void> = [];
  failWrites = false;

  async add(kind: MarkKind, key: string, expiresAt: Date): Promise<boolean> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failWrites) throw new Error('database away');
    if (this.rows.has(`${kind}:${key}`)) return false;
    this.rows.set(`${kind}:${key}`, expiresAt.getTime());
    return true;
  }
  async take(kind: MarkKind, key: string, now: Date): Promise<boolean> {
    const expiresAt = this.rows.get(`${kind}:${key}`);
    this.rows.delete(`${kind}:${key}`);
    return expiresAt !== undefined && expiresAt > now.getTime();
  }
  async has(kind: MarkKind, key: string, now: Date): Promise<boolean> {
    return (this.rows.get(`${kind}:${key}`) ?? 0) > now.getTime();
  }
  /** Lets every write waiting so far land. */
  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
  get waiting(): number {
    return this.held.length;
  }
}

describe('login links on shared marks', () => {
  it('resolves a link only after its mark is stored; then another replica spends it, once', async () => {
    const marks = new HeldMarks();
    const [a, b] = [new WebAuth({ users: [], marks }), new WebAuth({ users: [], marks })];
    let token: string | null | undefined;
    const minted = a.mintLoginToken().then((t) => (token = t));
    await new Promise((resolve) => setImmediate(resolve));
    expect(marks.waiting).toBe(1);
    expect(token).toBeUndefined();

    marks.release();
    await minted;
    expect(token).toMatch(/^[\w-]{32}\.[\w-]+$/);
    expect(await b.consumeLoginToken(token!)).toBe('admin');
    expect(await a.consumeLoginToken(token!)).toBeNull();
  });

  it('rejects when the mark cannot be stored, rather than hand out a link no replica accepts', async () => {
    const marks = new HeldMarks();
    marks.failWrites = true;
    const minted = new WebAuth({ users: [], marks }).mintLoginToken();
    await new Promise((resolve) => setImmediate(resolve));
    marks.release();
    await expect(minted).rejects.toThrow('database away');
    expect(marks.rows.size).toBe(0);
  });
});
