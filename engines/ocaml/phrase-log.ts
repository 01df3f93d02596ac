// The phrase log: exactly the phrases that evaluated successfully, as plain OCaml source, one
// phrase per entry terminated by ";;". It is what checkpoint saves, restore and crash recovery
// replay, and compile_to_binary compiles. The in-memory copy is authoritative (so a crash can be
// replayed even when the file cannot be written); the file mirrors it at TOPUP_LOG.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { OcamlError } from './errors.js';
import { writeFileDurable } from '../../common/durable-write.js';

/** Default when TOPUP_LOG is unset: one file per server process, so concurrent servers never share one. */
export function defaultLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME || homedir(), '.topup', 'logs', `session-${process.pid}.ml`);
}

export function renderPhrases(phrases: readonly string[]): string {
  return phrases.map((p) => `${p};;\n`).join('');
}

export class PhraseLog {
  private entries: string[] = [];
  /** In `entries` but not yet in the file (see `stage`). */
  private staged: string[] = [];
  /** Why the file cannot be written, or null when it can. */
  private unwritable: string | null = null;

  constructor(
    readonly path: string,
    /** Whether the path is the per-process default (removed on close). */
    readonly isDefault: boolean,
  ) {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, '', { mode: 0o600 });
    } catch (err) {
      this.unwritable = (err as Error).message;
    }
  }

  get phrases(): readonly string[] {
    return this.entries;
  }

  get text(): string {
    return renderPhrases(this.entries);
  }

  get writable(): boolean {
    return this.unwritable === null;
  }

  append(phrases: readonly string[]): void {
    this.stage(phrases);
    this.commit();
  }

  /**
   * Add phrases to the log in memory now (what a replay uses) and to the file at the next
   * `commit`: an eval_batch stages each element's phrases as its result arrives and commits once
   * at the end, so the file gets one append per batch instead of one per element (an append per
   * element was about a third of what the server spent on a small batch element). The append is
   * a single write of whole records, so the file never holds half a phrase.
   */
  stage(phrases: readonly string[]): void {
    if (phrases.length === 0) return;
    this.entries.push(...phrases);
    if (!this.unwritable) this.staged.push(...phrases);
  }

  /** Append the staged phrases to the file. */
  commit(): void {
    if (this.staged.length === 0) return;
    const text = renderPhrases(this.staged);
    this.staged = [];
    if (this.unwritable) return;
    try {
      appendFileSync(this.path, text);
    } catch (err) {
      this.unwritable = (err as Error).message;
    }
  }

  /** Replace the whole log (reset, restore, replay), written atomically. */
  async replace(phrases: readonly string[]): Promise<void> {
    this.entries = [...phrases];
    this.staged = [];
    if (this.unwritable) return;
    try {
      await writeFileDurable(this.path, renderPhrases(this.entries));
    } catch (err) {
      this.unwritable = (err as Error).message;
    }
  }

  /** Fail with a clear message unless the log file is being written. */
  requireWritable(what: string): void {
    if (this.unwritable) {
      throw new OcamlError(
        'log_unavailable',
        `${what} needs the phrase log, but TOPUP_LOG=${this.path} is not writable (${this.unwritable}); ` +
          'unset TOPUP_LOG or point it at a writable file and restart the server',
      );
    }
  }

  removeIfDefault(): void {
    if (this.isDefault) rmSync(this.path, { force: true });
  }
}
