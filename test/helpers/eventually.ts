/**
 * Waits for an asynchronous effect (a card delivered by a background job) without fixed sleeps: retries `check`
 * every few milliseconds until it stops throwing, or fails with its last error after `timeoutMs`.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}
