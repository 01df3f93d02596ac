// The worker side of the host: wait for jobs, run each through the engine, check the transfer
// bounds, answer. Shared by the real worker (engines/lispex/worker.ts) and by test workers.

import { parentPort } from 'node:worker_threads';
import type { Observation } from '../observation.js';
import type { EvaluationJob, JobMessage, WorkerReply } from './protocol.js';

export type RunJob = (job: EvaluationJob) => Observation;

/** Serve jobs on `parentPort` until the host terminates this worker. */
export function serveEvaluations(run: RunJob): void {
  const port = parentPort;
  if (port === null) throw new Error('serveEvaluations must run inside a worker thread');
  // The host's stdout may be an MCP channel: whatever this thread prints goes to stderr.
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const reply = (message: WorkerReply): void => port.postMessage(message);
  port.on('message', (message: JobMessage) => {
    if (message?.type !== 'job') return;
    const { id, job, bounds } = message;
    let observation: Observation;
    try {
      observation = run(job);
    } catch (error) {
      // No stack trace: it could quote internals, and the host only needs to know it failed.
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      reply({ type: 'engine-failure', id, message: text });
      return;
    }
    const records = observation.diagnostics.length + observation.warnings.length;
    if (records > bounds.maxRecords) {
      reply({
        type: 'over-bound',
        id,
        excess: {
          bound: 'diagnostics-and-warnings',
          actual: records,
          limit: bounds.maxRecords,
          status: observation.status,
          exit_status: observation.exit_status,
        },
      });
      return;
    }
    let bytes: number;
    try {
      bytes = Buffer.byteLength(JSON.stringify(observation), 'utf8');
    } catch (error) {
      // E.g. a value nested too deeply for JSON: there is no observation to deliver.
      reply({ type: 'engine-failure', id, message: `the observation cannot be serialized: ${(error as Error).message}` });
      return;
    }
    if (bytes > bounds.maxObservationBytes) {
      reply({
        type: 'over-bound',
        id,
        excess: {
          bound: 'observation-bytes',
          actual: bytes,
          limit: bounds.maxObservationBytes,
          status: observation.status,
          exit_status: observation.exit_status,
        },
      });
      return;
    }
    try {
      reply({ type: 'observation', id, observation });
    } catch (error) {
      reply({ type: 'engine-failure', id, message: `the observation cannot be transferred: ${(error as Error).message}` });
    }
  });
  reply({ type: 'ready' });
}
