// A small JSON document on disk (under ~/.topup), read on demand and replaced atomically on every
// change. A missing file is an empty store; an unreadable or malformed one is reported, not erased.
import { readFileSync, existsSync } from 'node:fs';
import type { z } from 'zod';
import { writeJsonDurable } from '../../../common/durable-write.js';

export class JsonStore<T> {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
    private readonly empty: () => T,
  ) {}

  read(): T {
    if (!existsSync(this.path)) return this.empty();
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (err) {
      throw new Error(`${this.path} is not valid JSON (${(err as Error).message}); fix or remove it`);
    }
    const parsed = this.schema.safeParse(raw);
    if (!parsed.success)
      throw new Error(
        `${this.path} does not have the expected shape: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      );
    return parsed.data;
  }

  /** Read-modify-write, serialised so two concurrent updates never lose one another's change. */
  update(change: (current: T) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const next = change(this.read());
      await writeJsonDurable(this.path, next);
      return next;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
