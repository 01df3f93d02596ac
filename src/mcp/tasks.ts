// The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28): a tools/call answered with a
// task handle (resultType "task") while the tool runs on; the client polls tasks/get, answers
// the task's input requests with tasks/update, and may tasks/cancel it. A task and its result are
// kept for the task's ttlMs from its creation, then forgotten (tasks/get then says unknown).
import { randomUUID } from 'node:crypto';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { isObject } from './request-scope.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';

export interface TaskOptions {
  /** How long a task (and its result) is kept after its creation; default 10 minutes. */
  ttlMs?: number;
  /** The polling interval suggested to clients; default 1000 ms. */
  pollIntervalMs?: number;
}

interface PendingInput {
  readonly request: { method: string; params: Record<string, unknown> };
  readonly resolve: (response: unknown) => void;
}

export class Task {
  readonly taskId = randomUUID();
  readonly createdAt = new Date().toISOString();
  lastUpdatedAt = this.createdAt;
  status: TaskStatus = 'working';
  statusMessage?: string;
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
  readonly controller = new AbortController();
  readonly pending = new Map<string, PendingInput>();
  private nextKey = 0;

  constructor(
    readonly ttlMs: number,
    readonly pollIntervalMs: number,
  ) {}

  get terminal(): boolean {
    return this.status === 'completed' || this.status === 'failed' || this.status === 'cancelled';
  }

  set(status: TaskStatus, message?: string): void {
    if (this.terminal) return;
    this.status = status;
    if (message !== undefined) this.statusMessage = message;
    this.lastUpdatedAt = new Date().toISOString();
  }

  /** Ask the client through tasks/get → tasks/update; resolves with its response. */
  ask(method: string, params: Record<string, unknown>): Promise<unknown> {
    const key = `${method.split('/')[0]}-${this.nextKey++}`;
    return new Promise((resolve) => {
      this.pending.set(key, { request: { method, params }, resolve });
      this.set('input_required');
    });
  }

  /** tasks/update: answers for keys outstanding now; anything else is ignored, as the spec asks. */
  answer(responses: Record<string, unknown>): void {
    for (const [key, response] of Object.entries(responses)) {
      const p = this.pending.get(key);
      if (!p) continue;
      this.pending.delete(key);
      p.resolve(response);
    }
    if (this.pending.size === 0 && this.status === 'input_required') this.set('working');
  }

  /** The DetailedTask of tasks/get and of the CreateTaskResult. */
  describe(): Record<string, unknown> {
    const d: Record<string, unknown> = {
      taskId: this.taskId,
      status: this.status,
      createdAt: this.createdAt,
      lastUpdatedAt: this.lastUpdatedAt,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      ...(this.statusMessage !== undefined ? { statusMessage: this.statusMessage } : {}),
    };
    if (this.status === 'input_required') {
      d.inputRequests = Object.fromEntries([...this.pending].map(([k, p]) => [k, p.request]));
    }
    if (this.status === 'completed') d.result = this.result;
    if (this.status === 'failed') d.error = this.error;
    return d;
  }
}

/** The tasks of one McpServer (all its connections: a task outlives the request that made it). */
export class TaskStore {
  private readonly tasks = new Map<string, Task>();
  readonly ttlMs: number;
  readonly pollIntervalMs: number;

  constructor(options: TaskOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
  }

  /** Start `run` as a task; it settles the task with a result or a JSON-RPC error. */
  start(run: (task: Task) => Promise<Record<string, unknown>>): Task {
    const task = new Task(this.ttlMs, this.pollIntervalMs);
    this.tasks.set(task.taskId, task);
    setTimeout(() => {
      task.controller.abort(new DOMException('task expired', 'AbortError'));
      this.tasks.delete(task.taskId);
    }, task.ttlMs).unref();
    run(task).then(
      (result) => {
        if (task.terminal) return;
        task.result = result;
        task.set('completed');
      },
      (err: unknown) => {
        if (task.terminal) return;
        if (task.controller.signal.aborted) return task.set('cancelled');
        task.error =
          err instanceof RpcError
            ? { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) }
            : { code: ErrorCode.InternalError, message: 'Internal error' };
        task.set('failed');
      },
    );
    return task;
  }

  get(params: Record<string, unknown>): Task {
    const id = params.taskId;
    if (typeof id !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "taskId" must be a string');
    const task = this.tasks.get(id);
    if (!task) throw new RpcError(ErrorCode.InvalidParams, `Unknown task: ${id} (never created, or expired after its ttlMs)`);
    return task;
  }

  update(params: Record<string, unknown>): void {
    const task = this.get(params);
    if (!isObject(params.inputResponses)) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'Invalid params: "inputResponses" must be an object mapping input request keys to results',
      );
    }
    task.answer(params.inputResponses);
  }

  cancel(params: Record<string, unknown>): void {
    const task = this.get(params);
    if (task.terminal) return;
    task.set('cancelled', 'cancelled by the client');
    task.controller.abort(new DOMException('task cancelled', 'AbortError'));
  }
}
