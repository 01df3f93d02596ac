// Lispex MCP latency through the official SDK client over stdio, against the built server
// (dist/bin/lispex.js mcp serve): back-to-back `lispex_eval (+ 1 2)`, the same spaced by 200 ms,
// 200 concurrent calls, side by side with `lispex_diagnostic E300` (a tool call that evaluates
// nothing) and with the `echo` tool of the package's example server (dist/bin/mcp-engines.js
// example: the MCP core's own round trip, no Lispex at all), interleaved call by call, so the
// ratios show what evaluation adds (issue 34's goal: eval within 2x echo). Also times
// `lispex run` of `(display 1)` as a whole process, side by side with `node -e 0` and (when
// installed) `guile -c '(display 1)'`, interleaved.
//
//   npm run build && node --import tsx bench/lispex/mcp-latency.ts [--calls 200] [--calls-only]
//
// --calls-only: only the interleaved back-to-back calls (no spaced calls, burst or processes).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const args = process.argv.slice(2);
const CALLS = Number(args[args.indexOf('--calls') + 1] ?? 200) || 200;
const CALLS_ONLY = args.includes('--calls-only');
const BIN = fileURLToPath(new URL('../../dist/bin/lispex.js', import.meta.url));
const ECHO_BIN = fileURLToPath(new URL('../../dist/bin/mcp-engines.js', import.meta.url));

function stats(ms: number[]): { median: number; p95: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1]! };
}
const f = (n: number): string => n.toFixed(2);

async function timed(call: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await call();
  return performance.now() - t;
}

const client = new Client({ name: 'lispex-latency-bench', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', 'serve'], stderr: 'ignore' }));
const echoClient = new Client({ name: 'lispex-latency-bench', version: '1.0.0' });
await echoClient.connect(new StdioClientTransport({ command: process.execPath, args: [ECHO_BIN, 'example'], stderr: 'ignore' }));
const evalCall = (): Promise<unknown> => client.callTool({ name: 'lispex_eval', arguments: { source: '(+ 1 2)' } });
// A program the inline gate turns away (it binds a procedure): the worker hop's price, reported
// beside the headline so the gate's share of the gain stays visible.
const WORKER_SOURCE = '(define (inc x) (+ x 1)) (inc 2)';
const workerEvalCall = (): Promise<unknown> => client.callTool({ name: 'lispex_eval', arguments: { source: WORKER_SOURCE } });
const diagCall = (): Promise<unknown> => client.callTool({ name: 'lispex_diagnostic', arguments: { code: 'E300' } });
const echoCall = (): Promise<unknown> => echoClient.callTool({ name: 'echo', arguments: { text: '(+ 1 2)' } });

// Warm every path (first calls load code in the servers and the workers).
for (let i = 0; i < 50; i++) {
  await evalCall();
  await workerEvalCall();
  await diagCall();
  await echoCall();
}
const evalB2B: number[] = [];
const diagB2B: number[] = [];
const echoB2B: number[] = [];
const workerB2B: number[] = [];
for (let i = 0; i < CALLS; i++) {
  evalB2B.push(await timed(evalCall));
  workerB2B.push(await timed(workerEvalCall));
  echoB2B.push(await timed(echoCall));
  diagB2B.push(await timed(diagCall));
}
await echoClient.close();
const e = stats(evalB2B);
const d = stats(diagB2B);
const h = stats(echoB2B);
const w = stats(workerB2B);
console.log(`lispex_eval (+ 1 2) back to back x${CALLS}: median ${f(e.median)} ms, p95 ${f(e.p95)} ms`);
console.log(`echo (example server) back to back x${CALLS}: median ${f(h.median)} ms, p95 ${f(h.p95)} ms`);
console.log(`lispex_eval ${WORKER_SOURCE} (through a worker) back to back x${CALLS}: median ${f(w.median)} ms, p95 ${f(w.p95)} ms`);
console.log(`lispex_diagnostic E300 back to back x${CALLS}: median ${f(d.median)} ms, p95 ${f(d.p95)} ms`);
console.log(`  eval/echo ratio: median ${f(e.median / h.median)}x, p95 ${f(e.p95 / h.p95)}x`);
console.log(`  eval/diagnostic ratio: median ${f(e.median / d.median)}x, p95 ${f(e.p95 / d.p95)}x`);
if (CALLS_ONLY) {
  await client.close();
  process.exit(0);
}

const spaced: number[] = [];
for (let i = 0; i < 20; i++) {
  await new Promise((r) => setTimeout(r, 200));
  spaced.push(await timed(evalCall));
}
const burstStart = performance.now();
const burst = await Promise.all(Array.from({ length: 200 }, () => timed(evalCall)));
const burstWall = performance.now() - burstStart;
await client.close();
const s = stats(spaced);
const b = stats(burst);
console.log(`lispex_eval spaced by 200 ms x20: median ${f(s.median)} ms, p95 ${f(s.p95)} ms`);
console.log(`200 concurrent lispex_eval: all answered in ${f(burstWall)} ms (per call median ${f(b.median)}, max ${f(b.max)})`);

// Whole-process `lispex run`, side by side with a bare Node start.
const dir = mkdtempSync(join(tmpdir(), 'lispex-run-bench-'));
try {
  const file = join(dir, 'one.scm');
  writeFileSync(file, '(display 1)');
  // NODE_EXTRA_CA_CERTS (set on some machines, e.g. this one) makes every Node process read and
  // parse a CA bundle at start (~50 ms here): the processes run once with the environment as
  // inherited and, when it is set, once more without it — what a plain machine sees.
  const plainEnv = { ...process.env };
  delete plainEnv.NODE_EXTRA_CA_CERTS;
  const envs: Array<[string, NodeJS.ProcessEnv]> = [['environment as inherited', process.env]];
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) envs.push(['without NODE_EXTRA_CA_CERTS', plainEnv]);
  const hasGuile = spawnSync('guile', ['-c', '0'], { stdio: 'ignore' }).status === 0;
  for (const [label, env] of envs) {
    const proc = (argv: string[], command = process.execPath): number => {
      const t = performance.now();
      const r = spawnSync(command, argv, { stdio: 'ignore', env });
      if (r.status !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${r.status}`);
      return performance.now() - t;
    };
    const run: number[] = [];
    const bare: number[] = [];
    const guile: number[] = [];
    for (let i = 0; i < 15; i++) {
      run.push(proc([BIN, 'run', file]));
      bare.push(proc(['-e', '0']));
      if (hasGuile) guile.push(proc(['-c', '(display 1)'], 'guile'));
    }
    const r = stats(run);
    const n = stats(bare);
    console.log(
      `[${label}] lispex run (display 1), whole process x15: median ${f(r.median)} ms (min ${f(Math.min(...run))}); ` +
        `node -e 0: median ${f(n.median)} ms (min ${f(Math.min(...bare))}); ratio ${f(r.median / n.median)}x`,
    );
    if (hasGuile) {
      const g = stats(guile);
      console.log(
        `[${label}] guile -c '(display 1)': median ${f(g.median)} ms (min ${f(Math.min(...guile))}); lispex run / guile ${f(r.median / g.median)}x`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
