// Durable state of the trusted-native flow: its tables (native_preparations, native_intents,
// native_runs) in the service's one database `<store>/service.sqlite3` (store/migrations.ts,
// version 2), written through a connection of its own with synchronous = FULL.
//
// Why a second connection: in WAL mode `synchronous` is a property of the connection that commits.
// This one has FULL, so every commit it makes — above all the latch that moves an intent out of
// `active` before the FTP creation and before the Run Update write — has its WAL frames fsync'd
// before the commit returns, i.e. before the service touches the device. The service's own
// connection (store.ts) keeps NORMAL, which survives kill -9 but may lose its last commits to a
// power loss; a latch must survive both. The fsync of the one WAL file also makes every earlier
// commit of the other connection durable (they are earlier frames of the same file), and SQLite
// syncs the WAL before each checkpoint on either level, so sharing the file weakens nothing that
// the separate file (`native/native.sqlite3`, its own WAL with FULL) gave. Both connections live
// in this one thread and better-sqlite3 is synchronous, so their transactions never interleave.
// Prepared update files are stored content-addressed under `<store>/native/ue2/<sha256>.ue2`,
// written durably (temp file, fsync, rename, fsync of the folder) before the preparation record.
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { type Logger, sha256Hex, writeFileDurable } from '../../../../common/index.js';
import { pageBySeq } from '../../store/seq-page.js';
import { logStoreOpen, openStoreDatabase } from '../../store/open-store-database.js';
import { type IntentEvent, applyIntentEvent } from './intent-state.js';
import {
  type IntentState,
  type NativeIntent,
  type NativePreparation,
  type NativeRun,
  type NativeRunSummary,
  UNFINISHED_RUN_STATES,
} from './native-records.js';

export class NativeStore {
  readonly dir: string;
  readonly #db: Database.Database;

  constructor(storeDir: string, opts: { logger?: Logger } = {}) {
    this.dir = join(storeDir, 'native');
    mkdirSync(join(this.dir, 'ue2'), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.dir, 'runs'), { recursive: true, mode: 0o700 });
    const { db, report } = openStoreDatabase(storeDir, { synchronous: 'FULL' });
    this.#db = db;
    // Normally the service's store was opened first and did any migration; opened alone, say so.
    logStoreOpen(report, opts.logger);
  }

  /** This connection's `PRAGMA synchronous` (2 = FULL: every commit fsync'd); the tests hold it to FULL. */
  synchronousLevel(): number {
    return this.#db.pragma('synchronous', { simple: true }) as number;
  }

  runDir(runId: string): string {
    return join(this.dir, 'runs', runId);
  }

  // ---- update files ----

  /** Stores the bytes under their SHA-256 (durably, atomically) and returns the hash. */
  async putUe2(bytes: Uint8Array): Promise<string> {
    const sha = sha256Hex(bytes);
    await writeFileDurable(join(this.dir, 'ue2', `${sha}.ue2`), bytes);
    return sha;
  }

  /** The stored bytes, or undefined when missing or no longer hashing to `sha`. */
  async getUe2(sha: string): Promise<Uint8Array | undefined> {
    if (!/^[0-9a-f]{64}$/.test(sha)) return undefined;
    try {
      const bytes = new Uint8Array(await readFile(join(this.dir, 'ue2', `${sha}.ue2`)));
      return sha256Hex(bytes) === sha ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  // ---- preparations ----

  putPreparation(p: NativePreparation): void {
    this.#db.prepare('INSERT INTO native_preparations (preparation_id, doc) VALUES (?, ?)').run(p.preparation_id, JSON.stringify(p));
  }

  getPreparation(id: string): NativePreparation | undefined {
    const row = this.#db.prepare('SELECT doc FROM native_preparations WHERE preparation_id = ?').get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as NativePreparation) : undefined;
  }

  // ---- intents ----

  insertIntent(i: NativeIntent): void {
    this.#db.prepare('INSERT INTO native_intents (intent_id, state, doc) VALUES (?, ?, ?)').run(i.intent_id, i.state, JSON.stringify(i));
  }

  getIntent(id: string): NativeIntent | undefined {
    const row = this.#db.prepare('SELECT doc FROM native_intents WHERE intent_id = ?').get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as NativeIntent) : undefined;
  }

  #writeIntent(i: NativeIntent): void {
    this.#db.prepare('UPDATE native_intents SET state = ?, doc = ? WHERE intent_id = ?').run(i.state, JSON.stringify(i), i.intent_id);
  }

  /**
   * Applies one state-machine event to an intent in one fsync'd transaction, together with an
   * optional run write (the latch: the run record and the intent leaving `active` commit together).
   * Throws IllegalIntentTransition (nothing written) when the event is not legal from the intent's
   * state as it is NOW in the database.
   */
  transition(intentId: string, event: IntentEvent, nowIso: string, run?: { insert?: NativeRun; update?: NativeRun }): NativeIntent {
    return this.#db.transaction(() => {
      const current = this.getIntent(intentId);
      if (!current) throw new Error(`no intent ${intentId}`);
      const next = applyIntentEvent(current, event, nowIso);
      if (next !== current) this.#writeIntent(next);
      if (run?.insert) this.#insertRun(run.insert);
      if (run?.update) this.putRun(run.update);
      return next;
    })();
  }

  listIntents(q: {
    limit: number;
    cursor?: string;
    state?: IntentState;
  }): { intents: NativeIntent[]; nextCursor: string | null } | 'bad-cursor' {
    const where: Array<[string, string]> = q.state !== undefined ? [['state = ?', q.state]] : [];
    const page = pageBySeq(this.#db, { table: 'native_intents', column: 'doc', tag: 'i', where, limit: q.limit, cursor: q.cursor });
    if (page === 'bad-cursor') return page;
    return { intents: page.values.map((v) => JSON.parse(v) as NativeIntent), nextCursor: page.nextCursor };
  }

  // ---- native runs ----

  #insertRun(r: NativeRun): void {
    this.#db
      .prepare('INSERT INTO native_runs (native_run_id, intent_id, state, doc) VALUES (?, ?, ?, ?)')
      .run(r.native_run_id, r.intent_id, r.state, JSON.stringify(r));
  }

  /** Writes a run's new state (fsync'd). A finished run is immutable: a second finish is refused. */
  putRun(r: NativeRun): void {
    const before = this.getRun(r.native_run_id);
    if (before && !UNFINISHED_RUN_STATES.includes(before.state))
      throw new Error(`native run ${r.native_run_id} is finished (${before.state}); its record is immutable`);
    this.#db.prepare('UPDATE native_runs SET state = ?, doc = ? WHERE native_run_id = ?').run(r.state, JSON.stringify(r), r.native_run_id);
  }

  getRun(id: string): NativeRun | undefined {
    const row = this.#db.prepare('SELECT doc FROM native_runs WHERE native_run_id = ?').get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as NativeRun) : undefined;
  }

  runsOf(intentId: string, limit = 50): NativeRunSummary[] {
    const rows = this.#db
      .prepare('SELECT doc FROM native_runs WHERE intent_id = ? ORDER BY seq DESC LIMIT ?')
      .all(intentId, limit) as Array<{
      doc: string;
    }>;
    return rows.map((r) => {
      const run = JSON.parse(r.doc) as NativeRun;
      return {
        native_run_id: run.native_run_id,
        state: run.state,
        started_at: run.started_at,
        finished_at: run.finished_at,
        utr2_token: run.utr2_token,
      };
    });
  }

  /**
   * Startup recovery: a run the previous process left latched, uploaded or triggered may or may
   * not have reached the device. It becomes `uncertain` and its intent `suspended` — never re-run.
   */
  recover(nowIso: string): string[] {
    const rows = this.#db
      .prepare(`SELECT doc FROM native_runs WHERE state IN (${UNFINISHED_RUN_STATES.map(() => '?').join(', ')})`)
      .all(...UNFINISHED_RUN_STATES) as Array<{ doc: string }>;
    const found: string[] = [];
    for (const { doc } of rows) {
      const run = JSON.parse(doc) as NativeRun;
      const reason = `the service stopped while the run was ${run.state}; whether the device received or ran it is unknown`;
      const done: NativeRun = {
        ...run,
        state: 'uncertain',
        finished_at: nowIso,
        steps: [...run.steps, { step: 'recovered', at: nowIso, detail: reason }],
        outcome: { verdict: 'uncertain', reason },
      };
      this.#db.transaction(() => {
        this.putRun(done);
        const intent = this.getIntent(run.intent_id);
        if (intent?.state === 'suspended' && intent.last_run_id === run.native_run_id)
          this.#writeIntent(applyIntentEvent(intent, { kind: 'uncertain', runId: run.native_run_id, reason }, nowIso));
      })();
      found.push(run.native_run_id);
    }
    return found;
  }

  close(): void {
    this.#db.close();
  }
}
