// MCP progress of a polled job: runs finished out of planned.
//
// The contract's test jobs are asynchronous — start_test_job answers with a job_id and the client
// polls get_job — so no tool waits on a test job and there is no long call to report on. What a
// client that asks for progress (sends a progressToken) on get_job or get_active_job gets instead
// is ONE notifications/progress before the answer: progress = the job's completed runs, total = its
// planned runs, from the very snapshot the answer carries (so the two never disagree), for a job
// that is still queued or running and has runs planned. A client or UI that renders progress
// notifications (a bar per request) thus shows "3 of 10 runs" on each poll without reading the
// job's JSON. A settled job (finished, failed, cancelled) gets none: its answer is the whole story,
// and a bar for a job that is over reports nothing. Without a progressToken nothing is sent, and
// the answer is byte for byte what it was. With a report, the answer waits for the client to answer
// one ping (ToolContext.progressDelivered): the report is then handled before the answer arrives.
import type { Job } from '../../services/ultimate-tool/api/schemas.js';
import type { ToolContext } from '../../src/index.js';

export async function reportJobRuns(ctx: Pick<ToolContext, 'progress' | 'progressDelivered'>, job: Job | null): Promise<void> {
  if (!job || (job.state !== 'queued' && job.state !== 'running')) return;
  const { completed_runs: done, total_runs: planned } = job.progress;
  if (!(planned > 0)) return;
  ctx.progress(done, planned, `${done} of ${planned} run(s) finished (job ${job.job_id}, ${job.state}, ${job.progress.phase})`);
  // The answer follows at once: it waits until the client has handled the report (a ping round
  // trip), or the official SDK client drops a report it reads in the same chunk as the answer.
  await ctx.progressDelivered?.();
}
