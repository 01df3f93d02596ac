// OcamlToplevel: a persistent OCaml toplevel as a typed TypeScript object.
//
// It owns one agent process (engines/ocaml/agent/topup_agent.ml) at a time. Every call except
// cancel() goes through a FIFO queue, so calls run one at a time in arrival order. The phrase log
// is the memory of the session: when the agent has to be replaced (user code called exit, a
// crash, an interrupt that was not answered) the new agent replays it and the caller is told.
import { closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, extname, isAbsolute, join } from 'node:path';
import { type AgentDriver, ensureAgentBinary } from './agent-build.js';
import { AgentExitedError, AgentProcess, type AgentReply } from './agent-process.js';
import { BatchJournal } from './batch-journal.js';
import { CaptureLimit, DEFAULT_CAPTURE_CAP } from './capture-limit.js';
import { writeFileDurable } from '../../common/durable-write.js';
import { validateCheckpointLabel } from './checkpoint-label.js';
import { OcamlError } from './errors.js';
import { DEFAULT_INLINE_CAP, DEFAULT_SPILL_RETENTION_MS, Spiller, defaultSpillDir, sweepSpillDir } from './overflow.js';
import { PhraseLog, defaultLogPath } from './phrase-log.js';
import { compileSourceToPlugin } from './compile-source.js';
import { checkOutputDir, promoteToBinary } from './promote.js';
import { CancelledError, SerialQueue } from '../../common/serial-queue.js';
import type {
  Binding,
  CheckpointResult,
  CompileResult,
  EvalBatchResult,
  EvalErrorKind,
  EvalBatchOptions,
  EvalOptions,
  EvalResult,
  LookupResult,
  SourceLocation,
  ToplevelRestart,
} from './types.js';

export interface OcamlToplevelOptions {
  /** The toplevel phrases run in: 'bytecode' (topup, the default) or 'native' (topup-opt). */
  driver?: AgentDriver;
  /**
   * Environment of the agent and of the build tools (PATH, HOME for the default paths).
   * Default process.env. The engine reads no TOPUP_* variable itself: the adapter or bin maps
   * TOPUP_LOG and TOPUP_CHECKPOINT_DIR to `logPath` and `checkpointDir`.
   */
  env?: NodeJS.ProcessEnv;
  /** Phrase log path (TOPUP_LOG); default ~/.topup/logs/session-<pid>.ml, removed at close. */
  logPath?: string;
  /** Checkpoint directory (TOPUP_CHECKPOINT_DIR); default ~/.topup/checkpoints. */
  checkpointDir?: string;
  /** Where the compiled agent is cached. */
  cacheDir?: string;
  /** Bytes of value_repr/stdout/stderr kept inline (default 16 KiB). */
  inlineCap?: number;
  /**
   * Where the full text of cut fields is written (default ~/.topup/spill/). Spill files outlive
   * the engine, so the client can read them after the answer; they are removed at a later engine
   * start once older than `spillRetentionMs` (default 24 h).
   */
  spillDir?: string;
  spillRetentionMs?: number;
  /**
   * Bytes of each of stdout and stderr one call keeps (default 16 MiB): past it the output is
   * discarded as it is written (the program runs on) and the answer says how much was dropped.
   */
  captureCap?: number;
  /** Seconds an eval may run when the caller gives no timeout (default 30). */
  defaultTimeoutSec?: number;
  /** How long an interrupted agent may take to answer before it is killed and replaced (default 2000 ms). */
  interruptGraceMs?: number;
  /** Diagnostics (default: stderr). */
  log?: (line: string) => void;
}

/** Largest timeout accepted: one day (setTimeout cannot wait much longer anyway). */
export const MAX_TIMEOUT_SEC = 86_400;
export const DEFAULT_TIMEOUT_SEC = 30;
/** A replay gets this long per call before it is interrupted. */
const REPLAY_TIMEOUT_SEC = 300;
/** While waiting for an interrupted agent, SIGINT is repeated this often (one may land between phrases). */
const INTERRUPT_REPEAT_MS = 100;
/** While an eval_batch runs, its journal is read this often: progress is at most this late. */
const BATCH_DRAIN_MS = 20;
/** setTimeout's ceiling (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What `load` takes under each driver (the contract: .cma/.cmo under topup, .cmxs under topup-opt). */
const LOADABLE: Record<AgentDriver, { extensions: readonly string[]; what: string }> = {
  bytecode: { extensions: ['.cma', '.cmo'], what: 'a bytecode archive or object (.cma or .cmo)' },
  native: {
    extensions: ['.cmxs', '.cmx', '.cmxa', '.ml'],
    what: 'a native plugin (.cmxs), a native object or archive (.cmx or .cmxa, with its .o/.a beside it), or an OCaml source file (.ml)',
  },
};

type InterruptReason = 'timeout' | 'cancelled';

/** The eval in flight: what interrupting it means. */
class RunningEval {
  reason: InterruptReason | null = null;
  killed = false;
  private repeat: NodeJS.Timeout | undefined;
  private grace: NodeJS.Timeout | undefined;

  constructor(
    readonly agent: AgentProcess,
    private readonly graceMs: number,
  ) {}

  interrupt(reason: InterruptReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.agent.interrupt();
    this.repeat = setInterval(() => this.agent.interrupt(), INTERRUPT_REPEAT_MS);
    this.grace = setTimeout(() => {
      this.killed = true;
      this.agent.kill();
    }, this.graceMs);
  }

  dispose(): void {
    clearInterval(this.repeat);
    clearTimeout(this.grace);
  }
}

interface AgentEvalReply {
  value_repr: string | null;
  type: string | null;
  warnings: string[];
  error: { kind: EvalErrorKind; message: string; location: SourceLocation | null } | null;
  logged: string[];
  stdout_bytes: number;
  stderr_bytes: number;
}

/** How a request the caller may interrupt ended: the agent's answer, or the result of a crash. */
type GuardedOutcome = { kind: 'reply'; reply: AgentReply } | { kind: 'crash'; result: EvalResult };

function validateTimeout(timeout: number | undefined, fallback: number): number {
  const t = timeout ?? fallback;
  if (!Number.isFinite(t) || t <= 0 || t > MAX_TIMEOUT_SEC) {
    throw new OcamlError('bad_argument', `timeout must be a number of seconds in (0, ${MAX_TIMEOUT_SEC}], got ${timeout}`);
  }
  return t;
}

/**
 * Remove temp work dirs (captures, compiled phrases) left by topup processes that were killed
 * before they could clean up. The owner's pid is in the name; a dir is only removed when it is
 * ours (same uid) and that pid is gone. Another user's dir — which we may not even be allowed to
 * read — is left alone, and nothing here may stop the engine from starting.
 */
function sweepStaleWorkDirs(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = /^topup-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    const path = join(root, name);
    try {
      if (uid !== undefined && statSync(path).uid !== uid) continue;
      process.kill(Number(m[1]), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') continue;
      try {
        rmSync(path, { recursive: true, force: true });
      } catch {
        // Not removable by us (EACCES/EPERM): someone else's problem, not a reason to fail.
      }
    }
  }
}

export class OcamlToplevel {
  readonly phraseLog: PhraseLog;
  private readonly processEnv: NodeJS.ProcessEnv;
  private readonly serial = new SerialQueue();
  private readonly workRoot: string;
  private readonly spiller: Spiller;
  private readonly diag: (line: string) => void;
  private readonly graceMs: number;
  private readonly defaultTimeout: number;
  private binary: Promise<string> | null = null;
  private agent: AgentProcess | null = null;
  private agentDir: string | null = null;
  private captureLimit: CaptureLimit | null = null;
  private readonly captureCap: number;
  private agentSeq = 0;
  private loadSeq = 0;
  private running: RunningEval | null = null;
  private closed = false;
  private readonly onProcessExit = () => this.agent?.kill();
  readonly driver: AgentDriver;

  constructor(private readonly options: OcamlToplevelOptions = {}) {
    this.processEnv = options.env ?? process.env;
    this.driver = options.driver ?? 'bytecode';
    this.diag = options.log ?? ((line) => process.stderr.write(`[ocaml] ${line}\n`));
    this.graceMs = options.interruptGraceMs ?? 2000;
    this.defaultTimeout = validateTimeout(options.defaultTimeoutSec, DEFAULT_TIMEOUT_SEC);
    const explicitLog = options.logPath;
    this.phraseLog = explicitLog ? new PhraseLog(explicitLog, false) : new PhraseLog(defaultLogPath(this.processEnv), true);
    sweepStaleWorkDirs(tmpdir());
    this.workRoot = mkdtempSync(join(tmpdir(), `topup-${process.pid}-`));
    const spillDir = options.spillDir ?? defaultSpillDir(this.processEnv.HOME || homedir());
    sweepSpillDir(spillDir, options.spillRetentionMs ?? DEFAULT_SPILL_RETENTION_MS);
    this.spiller = new Spiller(spillDir, options.inlineCap ?? DEFAULT_INLINE_CAP);
    this.captureCap = options.captureCap ?? DEFAULT_CAPTURE_CAP;
    if (!Number.isSafeInteger(this.captureCap) || this.captureCap < 1) {
      throw new OcamlError('bad_argument', `captureCap must be a positive whole number of bytes, got ${options.captureCap}`);
    }
    // A server that exits must not leave an agent behind (e.g. one spinning in a loop).
    process.once('exit', this.onProcessExit);
  }

  /** Calls run one at a time; one cancelled while waiting is the engine's 'cancelled' error. */
  private readonly queue = {
    run: <T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> =>
      this.serial.run(fn, signal).catch((err: unknown) => {
        if (err instanceof CancelledError) throw new OcamlError('cancelled', err.message);
        throw err;
      }),
  };

  get checkpointDir(): string {
    return this.options.checkpointDir ?? join(this.processEnv.HOME || homedir(), '.topup', 'checkpoints');
  }

  /** True while an eval is running (what cancel() would interrupt). */
  get busy(): boolean {
    return this.running !== null;
  }

  // ---------- agent lifecycle ----------

  private async startAgent(): Promise<AgentProcess> {
    if (this.closed) throw new OcamlError('closed', 'the OCaml toplevel has been closed');
    if (!this.binary) {
      this.binary = ensureAgentBinary({ driver: this.driver, cacheDir: this.options.cacheDir, env: this.processEnv });
      // A failed build (OCaml not installed yet) must not stick: the next call tries again.
      this.binary.catch(() => (this.binary = null));
    }
    const binary = await this.binary;
    const dir = join(this.workRoot, `agent-${++this.agentSeq}`);
    mkdirSync(dir, { mode: 0o700 });
    const { agent } = await AgentProcess.start({ binary, workdir: dir, env: this.processEnv, log: this.diag });
    this.agent = agent;
    this.agentDir = dir;
    this.captureLimit = new CaptureLimit(dir, this.captureCap);
    return agent;
  }

  private async stopAgent(): Promise<void> {
    const old = this.agent;
    const oldDir = this.agentDir;
    this.agent = null;
    this.agentDir = null;
    this.captureLimit?.close();
    this.captureLimit = null;
    if (old) await old.stop();
    if (oldDir) rmSync(oldDir, { recursive: true, force: true });
  }

  /** The live agent; if the previous one died between calls, a new one with the log replayed. */
  private async liveAgent(): Promise<{ agent: AgentProcess; restart?: ToplevelRestart }> {
    if (this.agent?.alive) return { agent: this.agent };
    if (this.agent) {
      const exit = await this.agent.exited();
      const restart = await this.restartAndReplay(
        exit.signal
          ? `the toplevel process was killed by ${exit.signal} between calls`
          : `the toplevel process exited with code ${exit.code} between calls`,
      );
      return { agent: this.agent!, restart };
    }
    return { agent: await this.startAgent() };
  }

  /** Replace the agent and replay the phrase log into the new one. */
  private async restartAndReplay(reason: string): Promise<ToplevelRestart> {
    await this.stopAgent();
    const agent = await this.startAgent();
    const phrases = this.phraseLog.phrases.length;
    if (phrases === 0) return { reason, replayed_phrases: 0, replay_error: null };
    const reply = await this.evalOn(agent, this.phraseLog.text, REPLAY_TIMEOUT_SEC, undefined, 'replace').catch(
      (err: Error) => ({ error: err.message, error_kind: 'crash' }) as Partial<EvalResult>,
    );
    if (reply.error) {
      this.diag(`replaying the phrase log failed: ${reply.error}`);
      return { reason, replayed_phrases: 0, replay_error: reply.error };
    }
    return { reason, replayed_phrases: phrases, replay_error: null };
  }

  // ---------- eval ----------

  /**
   * Evaluate one or more phrases (with or without `;;`). They run in order and stop at the first
   * failure; phrases before it keep their effect and are logged. value_repr/type describe the
   * last successful phrase that produced a value or a definition (null when the eval failed);
   * stdout, stderr and warnings accumulate over all phrases run.
   */
  async eval(source: string, options: EvalOptions = {}): Promise<EvalResult> {
    const timeout = validateTimeout(options.timeout, this.defaultTimeout);
    return this.queue.run(async () => {
      const { agent, restart } = await this.liveAgent();
      const result = await this.evalOn(agent, source, timeout, options.signal, 'append');
      if (restart && !result.toplevel_restarted) result.toplevel_restarted = restart;
      return result;
    }, options.signal);
  }

  /**
   * Evaluate sources in order (timeout per element), stopping after the first with an error.
   * The whole batch is one request: the agent runs the elements back to back and enforces each
   * element's deadline itself (an interval timer), so a batch costs one round trip. Results come
   * through the batch journal (batch-journal.ts), read every BATCH_DRAIN_MS while the batch runs
   * (each read reports its elements' progress), at the answer, and after a crash.
   */
  async evalBatch(sources: readonly string[], options: EvalBatchOptions = {}): Promise<EvalBatchResult> {
    const timeout = validateTimeout(options.timeout, this.defaultTimeout);
    if (sources.length === 0) return { results: [], stopped_on_error: false };
    return this.queue.run(async () => {
      const { agent, restart } = await this.liveAgent();
      const results: EvalResult[] = [];
      const journal = new BatchJournal(join(this.agentDir!, 'batch-results'));
      const drain = () => {
        for (const record of journal.read()) {
          const r = record as unknown as AgentEvalReply & { stdout: string; stderr: string };
          // In memory at once (a crash later in the batch replays it), in the file once per batch.
          this.phraseLog.stage(r.logged);
          const result = this.shapeResult(r);
          this.putCapped(result, 'stdout', r.stdout, r.stdout_bytes);
          this.putCapped(result, 'stderr', r.stderr, r.stderr_bytes);
          results.push(result);
          options.onElement?.(results.length, sources.length);
        }
      };
      // A read that fails while the batch runs (a malformed record) fails the call at its end.
      let drainFailure: unknown;
      const ticker = setInterval(() => {
        try {
          drain();
        } catch (err) {
          drainFailure ??= err;
        }
      }, BATCH_DRAIN_MS);
      // Only a safety net for an agent that stops answering: per-element deadlines are the agent's.
      let outcome: GuardedOutcome;
      try {
        outcome = await this.guardedRequest(
          agent,
          { op: 'eval_batch', sources, timeout, journal: journal.path, capture_cap: this.captureCap },
          timeout * sources.length + 5,
          options.signal,
          drain,
        );
        if (outcome.kind === 'reply') drain();
      } finally {
        clearInterval(ticker);
        journal.close();
        this.phraseLog.commit();
      }
      if (drainFailure) throw drainFailure;
      if (outcome.kind === 'reply' && outcome.reply.count !== results.length) {
        throw new Error(`the OCaml agent ran ${String(outcome.reply.count)} batch elements but its journal holds ${results.length}`);
      }
      if (restart && results[0]) results[0].toplevel_restarted = restart;
      // A crash ends the batch with one more element: the one that was running.
      if (outcome.kind === 'crash') return { results: [...results, outcome.result], stopped_on_error: true };
      return { results, stopped_on_error: outcome.reply.stopped_on_error === true };
    }, options.signal);
  }

  /** The agent's eval answer as an EvalResult (stdout/stderr filled in by the caller). */
  private shapeResult(reply: AgentEvalReply): EvalResult {
    const result: EvalResult = {
      value_repr: null,
      type: reply.type,
      stdout: '',
      stderr: '',
      warnings: reply.warnings,
      error: reply.error ? reply.error.message : null,
    };
    this.putCapped(result, 'value_repr', reply.value_repr);
    if (reply.error) {
      result.error_kind = reply.error.kind;
      result.error_location = reply.error.location;
    }
    return result;
  }

  /** One eval on a given agent, with timeout, abort and crash recovery. */
  private async evalOn(
    agent: AgentProcess,
    source: string,
    timeoutSec: number,
    signal: AbortSignal | undefined,
    log: 'append' | 'replace',
  ): Promise<EvalResult> {
    const dir = this.agentDir!;
    const outcome = await this.guardedRequest(agent, { op: 'eval', source }, timeoutSec, signal);
    if (outcome.kind === 'crash') return outcome.result;
    const reply = outcome.reply as unknown as AgentEvalReply;
    if (log === 'append') this.phraseLog.append(reply.logged);
    else await this.phraseLog.replace(reply.logged);
    const result = this.shapeResult(reply);
    this.putCapture(result, dir, 'stdout', reply.stdout_bytes);
    this.putCapture(result, dir, 'stderr', reply.stderr_bytes);
    return result;
  }

  /**
   * Send an eval-like request that the caller may interrupt (timeout, abort, cancel()). If the
   * agent dies meanwhile, what user code wrote is kept, a new agent replays the log, and the
   * answer is an EvalResult saying so.
   */
  private async guardedRequest(
    agent: AgentProcess,
    req: Record<string, unknown>,
    timeoutSec: number,
    signal: AbortSignal | undefined,
    /** Called when the agent has died, before it is replaced (its work dir goes with it). */
    beforeRestart?: () => void,
  ): Promise<GuardedOutcome> {
    const running = new RunningEval(agent, this.graceMs);
    const dir = this.agentDir!;
    const captures = this.captureLimit;
    this.running = running;
    captures?.watch();
    const timer = setTimeout(() => running.interrupt('timeout'), Math.min(Math.round(timeoutSec * 1000), MAX_TIMER_MS));
    const onAbort = () => running.interrupt('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const reply = await agent.request(req);
      captures?.unwatch();
      if (reply.ok !== true) throw new Error(`the OCaml agent failed: ${String(reply.error)}`);
      return { kind: 'reply', reply };
    } catch (err) {
      captures?.unwatch();
      if (!(err instanceof AgentExitedError)) throw err;
      const result: EvalResult = { value_repr: null, type: null, stdout: '', stderr: '', warnings: [], error: null };
      this.putCapture(result, dir, 'stdout', -1);
      this.putCapture(result, dir, 'stderr', -1);
      beforeRestart?.();
      const unresponsive = running.killed;
      const why = unresponsive
        ? `the toplevel did not answer the interrupt within ${this.graceMs} ms and was killed`
        : err.exit.signal
          ? `the toplevel process was killed by ${err.exit.signal} during evaluation`
          : `the toplevel process exited with code ${err.exit.code} during evaluation (user code called exit?)`;
      const restart = await this.restartAndReplay(why);
      const rebuilt =
        restart.replay_error !== null
          ? `a new toplevel was started but replaying the phrase log failed (${restart.replay_error}); bindings from before were lost`
          : restart.replayed_phrases > 0
            ? `a new toplevel was started and its environment rebuilt by replaying ${restart.replayed_phrases} logged phrases`
            : 'a new toplevel was started (the phrase log was empty, so there was nothing to replay)';
      result.error = `${unresponsive ? 'evaluation timed out: ' : ''}${why}; ${rebuilt}`;
      result.error_kind = unresponsive ? 'timeout' : 'crash';
      result.error_location = null;
      result.toplevel_restarted = restart;
      return { kind: 'crash', result };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      running.dispose();
      if (this.running === running) this.running = null;
    }
  }

  /** `total`: how many bytes the field had, when only the first (capture cap) ones are in `value`. */
  private putCapped(result: EvalResult, field: 'value_repr' | 'stdout' | 'stderr', value: string | null, total?: number): void {
    if (value === null) return;
    const c = this.spiller.limit(field, value, total, this.captureCap);
    result[field] = c.text;
    if (c.overflow) result[`${field}_overflow`] = c.overflow;
    if (c.discarded && field !== 'value_repr') result[`${field}_discarded_bytes`] = c.discarded;
  }

  /**
   * Read a capture file: its first captureCap bytes at most (past them the file is sparse, see
   * capture-limit.ts). `bytes` is what the agent wrote in all (< 0: unknown, the file's size).
   */
  private putCapture(result: EvalResult, dir: string, field: 'stdout' | 'stderr', bytes: number): void {
    if (bytes === 0) return;
    let buf: Buffer;
    let total = bytes;
    let fd: number | undefined;
    try {
      fd = openSync(join(dir, field), 'r');
      if (total < 0) total = fstatSync(fd).size;
      buf = Buffer.alloc(Math.min(total, this.captureCap));
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, got);
        if (n === 0) break;
        got += n;
      }
      buf = buf.subarray(0, got);
    } catch {
      return;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (buf.length === 0 && total <= 0) return;
    const c = this.spiller.limit(field, buf, Math.max(total, buf.length), this.captureCap);
    result[field] = c.text;
    if (c.overflow) result[`${field}_overflow`] = c.overflow;
    if (c.discarded) result[`${field}_discarded_bytes`] = c.discarded;
  }

  /** Interrupt the running eval (it answers "evaluation timed out"; bindings survive). */
  cancel(): { cancelled: boolean } {
    const r = this.running;
    if (!r) return { cancelled: false };
    r.interrupt('cancelled');
    return { cancelled: true };
  }

  // ---------- inspection ----------

  /** A request other than eval; an agent that dies on it is replaced (log replayed) and the call fails. */
  private async agentCall(req: Record<string, unknown>): Promise<AgentReply> {
    const { agent } = await this.liveAgent();
    // `load` runs the loaded code's initialisation, which may print without end.
    const captures = this.captureLimit;
    captures?.watch();
    try {
      return await agent.request(req);
    } catch (err) {
      if (!(err instanceof AgentExitedError)) throw err;
      const restart = await this.restartAndReplay(`${err.message} during ${String(req.op)}`);
      throw new OcamlError(
        'agent_start',
        `${err.message} during ${String(req.op)}; a new toplevel was started and ${restart.replayed_phrases} logged phrases replayed` +
          (restart.replay_error ? ` (replay failed: ${restart.replay_error})` : ''),
      );
    } finally {
      captures?.unwatch();
    }
  }

  /** User value bindings (name, type), oldest first; `all` adds the stdlib/library values in scope. */
  env(options: { filter?: string; all?: boolean } = {}): Promise<{ bindings: Binding[] }> {
    return this.queue.run(async () => {
      const reply = await this.agentCall({ op: 'env', all: options.all === true });
      if (reply.ok !== true) throw new Error(`the OCaml agent failed: ${String(reply.error)}`);
      let bindings = reply.bindings as Binding[];
      if (options.filter) bindings = bindings.filter((b) => b.name.includes(options.filter!));
      return { bindings };
    });
  }

  /** Type, location and a bounded preview of one binding (qualified names like List.map work). */
  async lookup(name: string): Promise<LookupResult> {
    if (!name.trim()) throw new OcamlError('bad_argument', 'name must be a non-empty OCaml value name');
    return this.queue.run(async () => {
      const reply = await this.agentCall({ op: 'lookup', name: name.trim() });
      if (reply.ok !== true) throw new OcamlError('not_found', String(reply.error));
      return {
        name: reply.name as string,
        type: reply.type as string,
        location: reply.location as SourceLocation | null,
        preview: reply.preview as string | null,
      };
    });
  }

  // ---------- environment management ----------

  /** A fresh environment in a new agent process (drops #load-ed code) and an empty phrase log. */
  reset(): Promise<{ reset: true; phrases_dropped: number }> {
    return this.queue.run(async () => {
      const dropped = this.phraseLog.phrases.length;
      await this.stopAgent();
      await this.phraseLog.replace([]);
      await this.startAgent();
      return { reset: true as const, phrases_dropped: dropped };
    });
  }

  /**
   * Load a compiled file into the live session; its directory joins the load path. Not logged.
   * Bytecode driver: .cma/.cmo. Native driver: .cmxs, or .cmx/.cmxa (linked into a .cmxs first).
   */
  async load(path: string): Promise<{ loaded: string; directory: string }> {
    if (!isAbsolute(path)) throw new OcamlError('bad_argument', `path must be absolute, got ${JSON.stringify(path)}`);
    const accepted = LOADABLE[this.driver];
    if (!accepted.extensions.includes(extname(path))) {
      throw new OcamlError('bad_argument', `path must name ${accepted.what}, got ${JSON.stringify(path)}`);
    }
    try {
      if (!statSync(path).isFile()) throw new OcamlError('bad_argument', `${path} is not a file`);
    } catch (err) {
      if (err instanceof OcamlError) throw err;
      throw new OcamlError('not_found', `cannot load ${path}: ${(err as Error).message}`);
    }
    return this.queue.run(async () => {
      // A source file is compiled on its own into a plugin in the engine's private dir first.
      const loadable =
        extname(path) === '.ml' ? await compileSourceToPlugin(path, join(this.workRoot, `load-${++this.loadSeq}`), this.processEnv) : path;
      const reply = await this.agentCall({ op: 'load', path: loadable });
      if (reply.ok !== true) throw new OcamlError('bad_argument', String(reply.error));
      return { loaded: path, directory: dirname(path) };
    });
  }

  // ---------- checkpoints ----------

  async checkpoint(label: string): Promise<CheckpointResult> {
    validateCheckpointLabel(label);
    return this.queue.run(async () => {
      this.phraseLog.requireWritable('checkpoint');
      const dir = this.checkpointDir;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${label}.ml`);
      const text = this.phraseLog.text;
      await writeFileDurable(path, text);
      return { label, path, phrases: this.phraseLog.phrases.length, bytes: Buffer.byteLength(text) };
    });
  }

  /**
   * Reset and replay the checkpoint. The live log becomes the checkpoint's text first; after the
   * replay it holds exactly the phrases that replayed successfully (all of them unless `error`).
   */
  async restore(label: string, options: EvalOptions = {}): Promise<EvalResult & { phrases_replayed: number }> {
    validateCheckpointLabel(label);
    const timeout = validateTimeout(options.timeout, REPLAY_TIMEOUT_SEC);
    return this.queue.run(async () => {
      this.phraseLog.requireWritable('restore');
      const path = join(this.checkpointDir, `${label}.ml`);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new OcamlError('not_found', `cannot read checkpoint ${path}: ${(err as Error).message}`);
        const known = (await readdir(this.checkpointDir).catch(() => [] as string[]))
          .filter((n) => n.endsWith('.ml'))
          .map((n) => n.slice(0, -3));
        throw new OcamlError(
          'not_found',
          `no checkpoint named "${label}" in ${this.checkpointDir}` +
            (known.length ? ` (available: ${known.join(', ')})` : ' (there are none yet; create one with checkpoint)'),
        );
      }
      await this.stopAgent();
      await this.phraseLog.replace([]);
      await writeFileDurable(this.phraseLog.path, text).catch(() => {});
      const agent = await this.startAgent();
      // evalOn replaces the log with exactly the phrases that replayed.
      const result = await this.evalOn(agent, text, timeout, options.signal, 'replace');
      return { ...result, phrases_replayed: this.phraseLog.phrases.length };
    }, options.signal);
  }

  // ---------- promotion ----------

  /** Build the phrase log into a native binary at out/main.exe; entry must have type unit -> _. */
  async compileToBinary(opts: { entry: string; out: string; libraries?: readonly string[]; signal?: AbortSignal }): Promise<CompileResult> {
    if (!/^[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*$/.test(opts.entry)) {
      throw new OcamlError('bad_argument', `entry must be the name of a binding in scope (e.g. "main"), got ${JSON.stringify(opts.entry)}`);
    }
    return this.queue.run(async () => {
      this.phraseLog.requireWritable('compile_to_binary');
      await checkOutputDir(opts.out);
      const check = await this.agentCall({ op: 'check_entry', name: opts.entry });
      if (check.ok !== true) throw new OcamlError('bad_argument', `cannot use entry ${opts.entry}: ${String(check.error)}`);
      return promoteToBinary({
        phrases: this.phraseLog.phrases,
        entry: opts.entry,
        out: opts.out,
        libraries: opts.libraries ?? [],
        env: this.processEnv,
        signal: opts.signal,
      });
    }, opts.signal);
  }

  /** Stop the agent and remove temporary files (captures, the default phrase log); spill files stay (see spillDir). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    process.off('exit', this.onProcessExit);
    this.running?.interrupt('cancelled');
    await this.stopAgent();
    rmSync(this.workRoot, { recursive: true, force: true });
    this.phraseLog.removeIfDefault();
  }
}
