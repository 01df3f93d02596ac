#!/usr/bin/env node
// The main job of setup.sh: start every server from the built package and use it as a user
// would — the official MCP SDK client over stdio for topup and lispex, and the UltimateDevice
// client against a virtual Ultimate 64. Prints one line per step; exits non-zero on failure.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => join(root, 'dist', 'bin', `${name}.js`);
const text = (r) => r.content[0].text;

async function withClient(args, fn) {
  const client = new Client({ name: 'mcp-engines-demo', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' }));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function topup() {
  await withClient([bin('mcp-engines'), 'topup'], async (c) => {
    const { tools } = await c.listTools();
    console.log(`topup: ${c.getServerVersion().name} ${c.getServerVersion().version}, ${tools.length} tools`);
    const defined = JSON.parse(
      text(await c.callTool({ name: 'eval', arguments: { source: 'let squares = List.init 6 (fun i -> i * i)' } })),
    );
    if (defined.error) throw new Error(`topup eval failed: ${JSON.stringify(defined.error)}`);
    console.log(`topup: let squares = … → ${defined.value_repr} : ${defined.type}`);
    const sum = JSON.parse(text(await c.callTool({ name: 'eval', arguments: { source: 'List.fold_left ( + ) 0 squares' } })));
    console.log(`topup: List.fold_left ( + ) 0 squares → ${sum.value_repr} : ${sum.type}`);
  });
}

async function lispex() {
  await withClient([bin('lispex'), 'mcp', 'serve'], async (c) => {
    const source = '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 20)';
    const r = await c.callTool({ name: 'lispex_compare_routes', arguments: { court: 'tree-rust', source } });
    const cmp = r.structuredContent ?? JSON.parse(text(r));
    if (r.isError) throw new Error(`lispex failed: ${text(r)}`);
    console.log(`lispex: (fib 20) on the tree and the bytecode VM → agreement: ${cmp.agreement}`);
    const ev = await c.callTool({ name: 'lispex_eval', arguments: { source } });
    const out = ev.structuredContent ?? JSON.parse(text(ev));
    console.log(
      `lispex: lispex_eval status ${out.status}, values ${JSON.stringify((out.values ?? []).map((v) => v.printed ?? v.write ?? v))}`,
    );
  });
}

async function ultimate() {
  const { UltimateDevice } = await import(join(root, 'dist', 'engines', 'ultimate', 'index.js'));
  const child = spawn(process.execPath, [bin('ultimate-tool'), 'virtual-device', '--exit-on-stdin-close'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const ports = JSON.parse(
      await new Promise((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c) => {
          out += c;
          if (out.includes('\n')) resolve(out.split('\n')[0]);
        });
        child.once('exit', (code) => reject(new Error(`virtual device exited with ${code}`)));
      }),
    );
    const device = new UltimateDevice({ host: '127.0.0.1', httpPort: ports.http, ftpPort: ports.ftp, dmaPort: ports.dma });
    const probe = await device.probe();
    console.log(`ultimate: ${probe.product} "${probe.hostname}" firmware ${probe.firmwareVersion} (virtual: ${probe.virtual})`);
    // 10 SYS2061 / LDA #$2A / STA $D7FF / JMP * — a program that writes the debug register.
    const prg = Uint8Array.from([
      0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00, 0xa9, 0x2a, 0x8d, 0xff, 0xd7, 0x4c, 0x12, 0x08,
    ]);
    await device.rest.runPrg({ bytes: prg });
    const deadline = Date.now() + 10_000;
    let value = await device.rest.debugRegister();
    while (value !== 0x2a && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      value = await device.rest.debugRegister();
    }
    if (value !== 0x2a) throw new Error(`the program did not write the debug register (got $${value.toString(16)})`);
    console.log(`ultimate: ran a PRG through REST; it wrote $${value.toString(16).toUpperCase()} to the debug register at $D7FF`);
    await device.close();
  } finally {
    child.stdin.end();
    child.kill();
  }
}

// The Ultimate Tool as a user runs it: the project service on the example C64 project with a
// virtual Ultimate 64 Elite II (an emulation) and virtual-vice as the emulator, and its MCP adapter
// driven by the official SDK client: a test job on both targets and each run's verdict, then one
// trusted-native run of the project's RISC-V program through a one-shot intent.
async function ultimateTool() {
  const work = mkdtempSync(join(tmpdir(), 'mcp-engines-demo-'));
  const project = join(work, 'c64-project');
  cpSync(join(root, 'examples', 'c64-project'), project, { recursive: true, filter: (p) => !p.includes(join('c64-project', 'build')) });
  const service = spawn(
    process.execPath,
    [
      bin('ultimate-tool'),
      'serve',
      '--project',
      project,
      '--port',
      '0',
      '--virtual-device',
      '--virtual-product',
      'u64-elite2',
      '--vice-command',
      `${process.execPath} ${bin('ultimate-tool')} virtual-vice`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const { url } = JSON.parse(
      await new Promise((resolve, reject) => {
        let out = '';
        service.stdout.on('data', (c) => {
          out += c;
          if (out.includes('\n')) resolve(out.split('\n')[0]);
        });
        service.once('exit', (code) => reject(new Error(`ultimate-tool serve exited with ${code}`)));
      }),
    );
    console.log(`ultimate-tool: project service and dashboard on ${url} (example project, virtual Ultimate 64 Elite II + virtual-vice)`);
    await withClient([bin('ultimate-tool-mcp'), '--service-url', url], async (c) => {
      const call = async (name, args = {}) => {
        const r = await c.callTool({ name, arguments: args });
        const env = r.structuredContent ?? JSON.parse(text(r));
        if (!env.data) throw new Error(`${name} failed: ${JSON.stringify(env.error)}`);
        return env.data;
      };
      const { probe } = await call('probe_ultimate');
      console.log(
        `ultimate-tool: probe ${probe.probe_id.slice(0, 8)}… of ${probe.identity.product ?? 'the device'} firmware ${probe.firmware} (emulation: ${probe.emulation})`,
      );
      const { job } = await call('start_test_job', {
        test: 'sum-passes',
        targets: ['vice', 'ultimate'],
        probe_id: probe.probe_id,
        confirmed_reset_count: 1,
        confirmed_reu_write_count: 0,
      });
      const finished = async (first) => {
        let state = first;
        while (state.state === 'queued' || state.state === 'running') {
          await new Promise((r) => setTimeout(r, 100));
          state = (await call('get_job', { job_id: first.job_id })).job;
        }
        if (state.state !== 'finished') throw new Error(`job ${state.state}: ${JSON.stringify(state.error)}`);
        return state;
      };
      const state = await finished(job);
      for (const id of state.run_ids) {
        const { run } = await call('get_run', { run_id: id });
        console.log(
          `ultimate-tool: test sum-passes on ${run.target}${run.emulation ? ' (emulation)' : ''}: ${run.status} — ${run.status_reason}`,
        );
        if (run.status !== 'passed') throw new Error(`run ${id} ${run.status}`);
      }
      const { preparation } = await call('create_native_preparation', { program: 'utr2-echo' });
      const nativeProbe = (await call('probe_ultimate')).probe;
      const { intent } = await call('create_native_intent', {
        preparation_id: preparation.preparation_id,
        probe_id: nativeProbe.probe_id,
        mode: 'one-shot',
      });
      console.log(
        `ultimate-tool: native program utr2-echo prepared (UE2 sha256 ${preparation.ue2_sha256.slice(0, 12)}…), one-shot intent ${intent.state} for ${intent.identity.product}`,
      );
      const started = await call('start_native_run', { intent_id: intent.intent_id, device_host: intent.identity.device_host });
      await finished(started.job);
      const after = (await call('get_native_intent', { intent_id: intent.intent_id })).intent;
      const nativeRun = after.runs[0];
      console.log(
        `ultimate-tool: native run ${nativeRun.native_run_id.slice(0, 8)}… ${nativeRun.state} (UTR2 token ${started.native_run.utr2_token} echoed); intent now ${after.state}`,
      );
      if (nativeRun.state !== 'completed' || after.state !== 'consumed')
        throw new Error(`native run ${nativeRun.state}, intent ${after.state}`);
    });
  } finally {
    service.kill('SIGTERM');
    await new Promise((r) => (service.exitCode !== null ? r() : service.once('exit', r)));
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await topup();
  await lispex();
  await ultimate();
  await ultimateTool();
  console.log('demo: every server answered.');
} catch (err) {
  console.error(`demo failed: ${err.stack ?? err}`);
  process.exit(1);
}
