// `ultimate-tool test --all`: the whole project (or --test NAME…) as one suite job on the vice
// target (the device needs a probe and a confirmed reset count: use start_suite_job for it), a
// progress line on stderr while it runs, JUnit XML for CI (--junit FILE), exit 0 when every run
// passed, 1 otherwise. It calls the service's suite route through the adapter's client, as the
// MCP tool start_suite_job does.
import { writeFileSync } from 'node:fs';
import { UsageError } from '../../common/index.js';
import { UltimateServiceClient } from './service-client.js';
import { DEFAULT_SERVICE_PORT } from './service-url.js';

export const TEST_USAGE = `usage: ultimate-tool test (--all | --test NAME [--test NAME …]) [--repeat N] [--junit FILE]
                          [--service-url http://127.0.0.1:PORT]

Runs the project's tests as one suite job on the vice target (the emulator pool, side by side) and
prints a progress line; --junit writes the runs as JUnit XML. Exit 0 when every run passed.`;

function xml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

export async function runTestCli(argv: string[]): Promise<number> {
  let all = false;
  const tests: string[] = [];
  let repeat = 1;
  let junit: string | undefined;
  let url = `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;
  try {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      const value = () => {
        const v = argv[++i];
        if (v === undefined) throw new UsageError(`${a} expects a value`);
        return v;
      };
      if (a === '--all') all = true;
      else if (a === '--test') tests.push(value());
      else if (a === '--repeat') repeat = Number(value());
      else if (a === '--junit') junit = value();
      else if (a === '--service-url') url = value();
      else if (a === '--help') {
        process.stdout.write(`${TEST_USAGE}\n`);
        return 0;
      } else throw new UsageError(`unknown option ${JSON.stringify(a)}`);
    }
    if (all === tests.length > 0) throw new UsageError('give --all or one or more --test NAME');
    if (!Number.isInteger(repeat) || repeat < 1) throw new UsageError('--repeat expects a positive integer');
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ultimate-tool test: ${e.message}\n${TEST_USAGE}\n`);
      return e.exitCode;
    }
    throw e;
  }
  const client = new UltimateServiceClient({ serviceUrl: url });
  const started = Date.now();
  let { job } = await client.call('startSuiteJob', { body: { targets: ['vice'], repeat, ...(tests.length ? { tests } : {}) } });
  for (;;) {
    const p = job.progress;
    const counts = Object.entries((p as { statuses?: Record<string, number> }).statuses ?? {})
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    process.stderr.write(
      `\r${p.completed_runs}/${p.total_runs} runs${counts ? ` (${counts})` : ''}, ${Math.round((Date.now() - started) / 1000)} s `,
    );
    if (job.state !== 'queued' && job.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 1000));
    ({ job } = await client.call('getJob', { params: { job_id: job.job_id } }));
  }
  process.stderr.write('\n');
  const cases: string[] = [];
  let failures = 0;
  for (const id of job.run_ids) {
    const { run } = await client.call('getRun', { params: { run_id: id } });
    const secs = (((run.timings as Record<string, number> | undefined)?.run_total_ms ?? 0) / 1000).toFixed(3);
    const ok = run.status === 'passed';
    if (!ok) failures++;
    cases.push(
      `  <testcase classname="${xml(run.target)}" name="${xml(run.test)}" time="${secs}">${ok ? '' : `<failure message="${xml(`${run.status}: ${run.status_reason}`)}"/>`}</testcase>`,
    );
  }
  if (job.state !== 'finished') failures++;
  if (junit)
    writeFileSync(
      junit,
      `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="ultimate-tool" tests="${cases.length}" failures="${failures}" time="${((Date.now() - started) / 1000).toFixed(1)}">\n${cases.join('\n')}\n</testsuite>\n`,
    );
  process.stdout.write(`${JSON.stringify({ job_id: job.job_id, state: job.state, runs: job.run_ids.length, failures })}\n`);
  return failures === 0 ? 0 : 1;
}
