// Where the CPU time of an eval_batch phrase goes, per process: this client, the MCP server (its
// own threads) and the agent, for one eval_batch of 100 small phrases against the same 100 as
// separate eval calls, on one bin over MCP stdio. The tool used to find what to cut in issue 23
// (the journal, the phrase log's single append); for the side-by-side figures see opt.ts.
//   node --import tsx bench/topup/batch-split.ts [--bin topup|topup-opt] [--rounds N] [--cpu-prof DIR]
// --cpu-prof DIR starts the server under node --cpu-prof (profile written to DIR when it exits).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, parseToolPayload, silentLogger } from '../../src/index.js';
import { spawnStdio } from '../../transports/index.js';
import { binCommand } from '../../test/helpers/bin.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const BIN = arg('--bin') ?? 'topup-opt';
const ROUNDS = Number(arg('--rounds') ?? 10);
const PROFILE_DIR = arg('--cpu-prof');

/** CPU time (ms) of one process (all its threads), from Linux's scheduler statistics. */
function processCpuMs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`))
    total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  return total;
}
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`))
    for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(' ')) if (c) out.push(Number(c));
  return out;
}
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const work = mkdtempSync(join(tmpdir(), 'topup-batch-split-'));
try {
  const { command, args } = binCommand(BIN);
  const nodeArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, ...args] : args;
  const env = { ...process.env, TOPUP_LOG: join(work, 'log.ml'), TOPUP_CHECKPOINT_DIR: join(work, 'cp') };
  const { transport, child } = spawnStdio(command, nodeArgs, { env, stderr: 'inherit' });
  const client = new McpClient({ name: 'batch-split', version: '1' }, { logger: silentLogger });
  await client.connect(transport, { timeoutMs: 300_000 });
  await client.callTool('eval', { source: '1' }); // starts (and builds, the first time) the agent
  const server = child.pid!;
  const [agent] = childrenOf(server);
  if (agent === undefined) throw new Error('the server has no agent process');
  const sources = Array.from({ length: 100 }, (_, i) => `let b${i} = ${i} + 1`);
  const sample = () => ({ client: selfCpuMs(), server: processCpuMs(server), agent: processCpuMs(agent) });
  type Split = ReturnType<typeof sample>;
  const sum = { batch: { client: 0, server: 0, agent: 0 }, separate: { client: 0, server: 0, agent: 0 } };
  const add = (into: Split, a: Split, b: Split) => {
    for (const k of ['client', 'server', 'agent'] as const) into[k] += b[k] - a[k];
  };
  for (let r = 0; r <= ROUNDS; r++) {
    const s0 = sample();
    const answer = parseToolPayload(await client.callTool('eval_batch', { sources })) as { results?: unknown[] };
    if (answer.results?.length !== sources.length) throw new Error(`eval_batch: ${JSON.stringify(answer).slice(0, 300)}`);
    const s1 = sample();
    for (const source of sources) await client.callTool('eval', { source });
    const s2 = sample();
    if (r === 0) continue; // warm-up
    add(sum.batch, s0, s1);
    add(sum.separate, s1, s2);
  }
  await client.close();
  const per = (x: number) => `${(x / ROUNDS / sources.length).toFixed(3)} ms`;
  console.log(`${BIN}, ${ROUNDS} rounds of 100 phrases, CPU time per phrase (node ${process.version})`);
  console.log('| path | client | MCP server | agent | total |');
  console.log('|---|---|---|---|---|');
  for (const [name, s] of [
    ['eval_batch', sum.batch],
    ['separate eval calls', sum.separate],
  ] as const)
    console.log(`| ${name} | ${per(s.client)} | ${per(s.server)} | ${per(s.agent)} | ${per(s.client + s.server + s.agent)} |`);
  console.log(
    `load average after the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
