/**
 * The adapter's overhead over calling the HTTP route directly, side by side in one run. The
 * service (the canned stand-in, its own process) answers both; each round makes one direct
 * HTTP GET (node:http, keep-alive) and one tools/call through the adapter, alternating, so both
 * see the same machine load. Two adapter paths:
 *   in-memory: an MCP client in this process → the adapter (McpServer + registry + client) → HTTP
 *   stdio:     the same client → the spawned ultimate-tool-mcp bin over stdio → HTTP
 *
 *   node --import tsx bench/ultimate-mcp/overhead.ts [--calls N]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createUltimateToolServer } from '../../adapters/ultimate/index.js';
import { McpClient, createLogger } from '../../src/index.js';
import { InMemoryTransport, spawnStdio } from '../../transports/index.js';
import { IDS } from '../../test/adapters/ultimate/helpers/fake-service.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = arg('--calls', 2000);
const here = fileURLToPath(new URL('.', import.meta.url));
const quiet = createLogger('bench', 'error');

const serviceProc = spawn(process.execPath, ['--import', 'tsx', `${here}service-process.ts`], { stdio: ['pipe', 'pipe', 'inherit'] });
const [firstLine] = (await once(serviceProc.stdout.setEncoding('utf8'), 'data')) as [string];
const url = firstLine.trim();

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function direct(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}${path}`, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve();
        });
      })
      .on('error', reject);
  });
}

async function inMemoryClient() {
  const server = createUltimateToolServer({ serviceUrl: url, logger: quiet });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new McpClient({ name: 'bench', version: '1' }, { logger: quiet });
  await client.connect(a);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function stdioClient() {
  const { transport } = spawnStdio(process.execPath, ['--import', 'tsx', `${here}../../bin/ultimate-tool-mcp.ts`, '--service-url', url]);
  const client = new McpClient({ name: 'bench', version: '1' }, { logger: quiet });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

type Case = { tool: string; args: Record<string, unknown>; path: string };
const cases: Case[] = [
  { tool: 'get_active_job', args: {}, path: '/v13/jobs/active' },
  { tool: 'get_run', args: { run_id: IDS.run }, path: `/v13/runs/${IDS.run}` },
];

console.log(`adapter overhead, ${CALLS} calls per path and tool, alternating; machine shared with other work`);
for (const [label, connect] of [
  ['in-memory', inMemoryClient],
  ['stdio', stdioClient],
] as const) {
  const { client, close } = await connect();
  for (const c of cases) {
    const d: number[] = [];
    const m: number[] = [];
    for (let i = 0; i < 200; i++) {
      await direct(c.path);
      await client.callTool(c.tool, c.args);
    }
    for (let i = 0; i < CALLS; i++) {
      let t = performance.now();
      await direct(c.path);
      d.push(performance.now() - t);
      t = performance.now();
      const r = await client.callTool(c.tool, c.args);
      m.push(performance.now() - t);
      if (r.isError) throw new Error(`${c.tool} failed: ${JSON.stringify(r)}`);
    }
    const [dm, mm] = [median(d), median(m)];
    console.log(
      `${label.padEnd(9)} ${c.tool.padEnd(15)} direct median ${dm.toFixed(3)} ms (p95 ${p95(d).toFixed(3)})  ` +
        `adapter median ${mm.toFixed(3)} ms (p95 ${p95(m).toFixed(3)})  overhead ${(mm - dm).toFixed(3)} ms  ratio ${(mm / dm).toFixed(2)}x`,
    );
  }
  await close();
}
agent.destroy();
serviceProc.stdin.end();
await once(serviceProc, 'exit');
