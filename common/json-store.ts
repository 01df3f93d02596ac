// A small JSON document on disk: read (missing file → the initial value), validated by the
// caller's parser, and updated one writer at a time with a durable atomic write. For state like
// topup's sessions.json; anything with many records belongs in a real database.
import { readFile } from 'node:fs/promises';
import { writeJsonDurable } from './durable-write.js';
import { SerialQueue } from './serial-queue.js';

export class JsonFileStore<T> {
  readonly #queue = new SerialQueue();

  constructor(
    readonly path: string,
    private readonly parse: (raw: unknown) => T,
    private readonly initial: () => T,
  ) {}

  async read(): Promise<T> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.initial();
      throw err;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new Error(`${this.path} is not valid JSON: ${(err as Error).message}`);
    }
    return this.parse(raw);
  }

  async write(value: T): Promise<void> {
    await this.#queue.run(() => writeJsonDurable(this.path, value));
  }

  /** Read, change, write — serialized, so two updates in one process never lose each other's change. */
  update(change: (current: T) => T | Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      const next = await change(await this.read());
      await writeJsonDurable(this.path, next);
      return next;
    });
  }
}
