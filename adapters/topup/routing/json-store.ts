// A small JSON document under ~/.topup, validated with a zod schema on every read: the common
// JsonFileStore (durable atomic writes, serialized read-modify-write) with the schema as its parser.
// A missing file is the empty document; a malformed one is reported, never erased.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { JsonFileStore } from '../../../common/json-store.js';

function validate<T>(schema: z.ZodType<T>, path: string, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new Error(`${path} does not have the expected shape: ${issues}; fix or remove it`);
}

export class JsonStore<T> {
  private readonly file: JsonFileStore<T>;

  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
    private readonly empty: () => T,
  ) {
    this.file = new JsonFileStore(path, (raw) => validate(schema, path, raw), empty);
  }

  read(): Promise<T> {
    return this.file.read();
  }

  /**
   * The same read, synchronously: the initialize instructions are built synchronously
   * (TopupRouter.describe), and they must show what the file says at that moment.
   */
  readSync(): T {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.empty();
      throw err;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new Error(`${this.path} is not valid JSON: ${(err as Error).message}; fix or remove it`);
    }
    return validate(this.schema, this.path, raw);
  }

  /** Read-modify-write, serialised so two concurrent updates never lose one another's change. */
  update(change: (current: T) => T): Promise<T> {
    return this.file.update(change);
  }
}
