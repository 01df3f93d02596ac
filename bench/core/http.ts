/**
 * tools/call of a trivial echo tool over Streamable HTTP: our server (transports/streamable-http
 * + McpServer) beside the official SDK's (McpServer + StreamableHTTPServerTransport) in its two
 * JSON-answer configurations, in one run. Each server is its own process; the client is the same
 * raw keep-alive HTTP driver for all, sequential (one call in flight) and pipelined (C calls in
 * flight over C connections).
 *
 *   node --import tsx bench/core/http.ts [--calls N] [--concurrency C] [--rounds R]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { once } from 'node:events';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = arg('--calls', 4000);
const CONCURRENCY = arg('--concurrency', 32);
const ROUNDS = arg('--rounds', 3);
const VERSION = '2025-11-25';

type Kind = 'ours' | 'sdk-session' | 'sdk-stateless';

async function start(kind: Kind): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./http-servers.ts', import.meta.url).pathname, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, url: new URL((JSON.parse(line) as { url: string }).url) };
}

function post(
  agent: http.Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function session(agent: http.Agent, url: URL, kind: Kind): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
  };
  if (kind === 'sdk-stateless') return headers;
  const init = await post(
    agent,
    url,
    headers,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  );
  const id = init.headers['mcp-session-id'] as string;
  if (init.status !== 200 || !id) throw new Error(`${kind}: initialize failed: ${init.status} ${init.body}`);
  const withSession = { ...headers, 'mcp-session-id': id };
  await post(agent, url, withSession, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return withSession;
}

/** N calls with `inFlight` at a time; returns calls per second. Every answer is checked. */
async function run(agent: http.Agent, url: URL, headers: Record<string, string>, calls: number, inFlight: number): Promise<number> {
  let next = 1;
  const worker = async () => {
    while (next <= calls) {
      const id = next++;
      const r = await post(
        agent,
        url,
        headers,
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `t${id}` } } }),
      );
      if (r.status !== 200 || !r.body.includes(`t${id}`)) throw new Error(`bad answer to call ${id}: ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return calls / ((performance.now() - t0) / 1000);
}

const kinds: Kind[] = ['ours', 'sdk-session', 'sdk-stateless'];
const results: Record<Kind, { seq: number[]; pipe: number[] }> = {
  ours: { seq: [], pipe: [] },
  'sdk-session': { seq: [], pipe: [] },
  'sdk-stateless': { seq: [], pipe: [] },
};
const servers = await Promise.all(kinds.map(start));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    // Interleaved, so load on the machine falls on every server alike.
    for (const [i, kind] of kinds.entries()) {
      const { url } = servers[i]!;
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const headers = await session(agent, url, kind);
      await run(agent, url, headers, Math.min(500, CALLS), 4); // warm-up (JIT)
      results[kind].seq.push(await run(agent, url, headers, CALLS / 4, 1));
      results[kind].pipe.push(await run(agent, url, headers, CALLS, CONCURRENCY));
      agent.destroy();
    }
  }
} finally {
  for (const { child } of servers) child.kill();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(
  `Streamable HTTP echo tools/call — ${ROUNDS} rounds, ${CALLS / 4} sequential + ${CALLS} pipelined (${CONCURRENCY} in flight) calls each, medians (calls/s)`,
);
for (const kind of kinds) {
  console.log(
    `  ${kind.padEnd(14)} sequential ${fmt(median(results[kind].seq)).padStart(8)}   pipelined ${fmt(median(results[kind].pipe)).padStart(8)}   (runs: ${results[kind].seq.map(fmt).join(' / ')} ; ${results[kind].pipe.map(fmt).join(' / ')})`,
  );
}
const bestSdk = (k: 'seq' | 'pipe') => Math.max(median(results['sdk-session'][k]), median(results['sdk-stateless'][k]));
console.log(
  `ours / best SDK: sequential ${(median(results.ours.seq) / bestSdk('seq')).toFixed(2)}×, pipelined ${(median(results.ours.pipe) / bestSdk('pipe')).toFixed(2)}×`,
);
