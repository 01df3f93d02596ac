// The worker side of the host: wait for jobs, run each through the engine, check the transfer
// bounds, answer. Shared by the real worker (engines/lispex/worker.ts) and by test workers.

import { parentPort } from 'node:worker_threads';
import type { Observation } from '../observation.js';
import type { BoundExcess, EvaluationJob, JobMessage, ResetState, WorkerReply } from './protocol.js';

export type RunJob = (job: EvaluationJob) => Observation;
/** Bring the engine back to its warm baseline after a job; throws if it cannot. */
export type ResetEngine = () => void;

/**
 * Serve jobs on `parentPort`, one at a time, until the host terminates this worker. After each
 * job — whatever its outcome — `reset` runs before the answer is sent, so by the time the host
 * hears the answer the worker is ready for the next job at the warm baseline.
 */
export function serveEvaluations(run: RunJob, reset: ResetEngine = () => {}): void {
  const port = parentPort;
  if (port === null) throw new Error('serveEvaluations must run inside a worker thread');
  // The host's stdout may be an MCP channel: whatever this thread prints goes to stderr.
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const reply = (message: WorkerReply): void => port.postMessage(message);
  port.on('message', (message: JobMessage) => {
    if (message?.type !== 'job') return;
    const answer = answerJob(run, message);
    let state: ResetState = 'baseline';
    try {
      reset();
    } catch {
      state = 'failed';
    }
    try {
      reply({ ...answer, reset: state } as WorkerReply);
    } catch (error) {
      reply({
        type: 'engine-failure',
        id: message.id,
        reset: state,
        message: `the observation cannot be transferred: ${(error as Error).message}`,
      });
    }
  });
  reply({ type: 'ready' });
}

/** A job's answer before the reset state is added (also what the host's inline evaluator gives). */
export type Answer =
  | { readonly type: 'observation'; readonly id: number; readonly observation: Observation }
  | { readonly type: 'over-bound'; readonly id: number; readonly excess: BoundExcess }
  | { readonly type: 'engine-failure'; readonly id: number; readonly message: string };

/** Run one job and check its transfer bounds (the reply, without the reset state). */
export function answerJob(run: RunJob, message: JobMessage): Answer {
  const { id, job, bounds } = message;
  let observation: Observation;
  try {
    observation = run(job);
  } catch (error) {
    // No stack trace: it could quote internals, and the host only needs to know it failed.
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { type: 'engine-failure', id, message: text };
  }
  const records = observation.diagnostics.length + observation.warnings.length;
  if (records > bounds.maxRecords) {
    return { type: 'over-bound', id, excess: excessOf(observation, 'diagnostics-and-warnings', records, bounds.maxRecords) };
  }
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(observation), 'utf8');
  } catch (error) {
    // E.g. a value nested too deeply for JSON: there is no observation to deliver.
    return { type: 'engine-failure', id, message: `the observation cannot be serialized: ${(error as Error).message}` };
  }
  if (bytes > bounds.maxObservationBytes) {
    return { type: 'over-bound', id, excess: excessOf(observation, 'observation-bytes', bytes, bounds.maxObservationBytes) };
  }
  return { type: 'observation', id, observation };
}

function excessOf(observation: Observation, bound: BoundExcess['bound'], actual: number, limit: number): BoundExcess {
  return { bound, actual, limit, status: observation.status, exit_status: observation.exit_status };
}
