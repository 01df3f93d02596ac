#!/usr/bin/env node
// The main job of setup.sh: start every server from the built package and use it as a user
// would — the official MCP SDK client over stdio for topup and lispex, and the UltimateDevice
// client against a virtual Ultimate 64. Prints one line per step; exits non-zero on failure.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
        child.stdout.on('data', (c) => ((out += c), out.includes('\n') && resolve(out.split('\n')[0])));
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

try {
  await topup();
  await lispex();
  await ultimate();
  console.log('demo: every server answered.');
} catch (err) {
  console.error(`demo failed: ${err.stack ?? err}`);
  process.exit(1);
}
