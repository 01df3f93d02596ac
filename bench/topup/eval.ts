// topup eval benchmark: where the time of a trivial eval goes, and what batching buys.
//   node --import tsx bench/topup/eval.ts [--iterations N]
// Side by side in one run:
//   agent     the OCaml agent's own round trip on its fd-3 channel (the floor)
//   engine    OcamlToplevel.eval in-process (queue, capture files, result shaping)
//   mcp       tools/call eval over stdio MCP to the topup bin (McpClient → JSON-RPC → engine)
//   ocaml     the same phrase piped to a plain `ocaml -noprompt` process (read until its answer)
// and eval_batch of 100 trivial phrases against 100 separate eval calls, both over MCP.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, parseToolPayload, silentLogger } from '../../src/index.js';
import { spawnStdio } from '../../transports/index.js';
import { OcamlToplevel, ensureAgentBinary } from '../../engines/ocaml/index.js';
import { AgentProcess } from '../../engines/ocaml/agent-process.js';
import { binCommand } from '../../test/helpers/bin.js';

const argIndex = process.argv.indexOf('--iterations');
const N = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 1000;
const WARMUP = 100;
const PHRASE = '1 + 1';

function stats(samples: number[]): { median: number; p90: number; mean: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p90: s[Math.floor(s.length * 0.9)]!, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;
const work = mkdtempSync(join(tmpdir(), 'topup-bench-'));
const env = { ...process.env, TOPUP_LOG: join(work, 'log.ml'), TOPUP_CHECKPOINT_DIR: join(work, 'cp') };

try {
  // Everything is set up first and then measured interleaved (one sample of each per iteration),
  // so a burst of load on this shared machine hits every path alike.
  const binary = await ensureAgentBinary();
  const agentDir = join(work, 'agent');
  mkdirSync(agentDir);
  const { agent } = await AgentProcess.start({ binary, workdir: agentDir, log: () => {} });
  const engine = new OcamlToplevel({ logPath: join(work, 'engine-log.ml'), log: () => {} });

  const { command, args } = binCommand('topup');
  const { transport } = spawnStdio(command, args, { env, stderr: 'inherit' });
  const client = new McpClient({ name: 'bench', version: '1' }, { logger: silentLogger });
  await client.connect(transport);
  const check = parseToolPayload(await client.callTool('eval', { source: PHRASE })) as { value_repr: string };
  if (check.value_repr !== '2') throw new Error(`unexpected eval answer ${JSON.stringify(check)}`);

  const ocaml = spawn('ocaml', ['-noprompt', '-nopromptcont'], { stdio: ['pipe', 'pipe', 'inherit'] });
  ocaml.stdout.setEncoding('utf8');
  let buffered = '';
  let waiting: (() => void) | null = null;
  ocaml.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    if (waiting && buffered.includes('- : int = 2\n')) {
      buffered = '';
      const w = waiting;
      waiting = null;
      w();
    }
  });
  const askOcaml = () =>
    new Promise<void>((resolve) => {
      waiting = resolve;
      ocaml.stdin.write(`${PHRASE};;\n`);
    });
  await askOcaml(); // the banner arrives first

  const paths: Array<[string, () => Promise<unknown>]> = [
    ['agent', () => agent.request({ op: 'eval', source: PHRASE })],
    ['engine', () => engine.eval(PHRASE)],
    ['mcp', () => client.callTool('eval', { source: PHRASE })],
    ['ocaml', askOcaml],
  ];
  const samples = new Map<string, number[]>(paths.map(([name]) => [name, []]));
  for (let i = 0; i < WARMUP + N; i++) {
    for (const [name, once] of paths) {
      const t0 = process.hrtime.bigint();
      await once();
      if (i >= WARMUP) samples.get(name)!.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const agentSamples = samples.get('agent')!;
  const engineSamples = samples.get('engine')!;
  const mcpSamples = samples.get('mcp')!;
  const ocamlSamples = samples.get('ocaml')!;

  // eval_batch of 100 vs 100 separate evals, interleaved round by round.
  const sources = Array.from({ length: 100 }, (_, i) => `${i} + 1`);
  const rounds = Math.max(10, Math.round(N / 20));
  const batchSamples: number[] = [];
  const separateSamples: number[] = [];
  for (let i = 0; i < rounds + 3; i++) {
    let t0 = process.hrtime.bigint();
    await client.callTool('eval_batch', { sources });
    if (i >= 3) batchSamples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    t0 = process.hrtime.bigint();
    for (const source of sources) await client.callTool('eval', { source });
    if (i >= 3) separateSamples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }

  await client.close();
  await agent.stop();
  await engine.close();
  ocaml.stdin.end();
  ocaml.kill();

  const a = stats(agentSamples);
  const e = stats(engineSamples);
  const m = stats(mcpSamples);
  const o = stats(ocamlSamples);
  const b = stats(batchSamples);
  const s = stats(separateSamples);
  console.log(`topup eval benchmark: "${PHRASE}", ${N} interleaved iterations after ${WARMUP} warm-up (node ${process.version})`);
  console.log('');
  console.log('| path | median | p90 | mean | median / agent |');
  console.log('|---|---|---|---|---|');
  for (const [name, st] of [
    ['agent (fd-3 round trip, the floor)', a],
    ['engine (OcamlToplevel.eval)', e],
    ['MCP stdio (tools/call eval)', m],
    ['plain `ocaml -noprompt` pipe', o],
  ] as const) {
    console.log(`| ${name} | ${fmt(st.median)} | ${fmt(st.p90)} | ${fmt(st.mean)} | ${(st.median / a.median).toFixed(2)}× |`);
  }
  console.log('');
  console.log(`MCP overhead over the agent (median): ${fmt(m.median - a.median)} (goal < 1 ms)`);
  console.log(`MCP eval vs plain ocaml pipe (median): ${(m.median / o.median).toFixed(2)}×`);
  console.log('');
  console.log(`| 100 trivial phrases (${rounds} rounds) | median total | per phrase |`);
  console.log('|---|---|---|');
  console.log(`| eval_batch (one call) | ${fmt(b.median)} | ${fmt(b.median / 100)} |`);
  console.log(`| 100 separate eval calls | ${fmt(s.median)} | ${fmt(s.median / 100)} |`);
  console.log('');
  console.log(`eval_batch is ${(s.median / b.median).toFixed(2)}× cheaper per phrase than separate calls (goal ≥ 5×)`);
  console.log(
    `load average during the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${cpus().length} CPUs`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
