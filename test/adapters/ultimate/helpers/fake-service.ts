// A stand-in for `ultimate-tool serve` that speaks the routes of the API's route table
// (services/ultimate-tool/api/routes.ts; docs/ultimate/SERVICE-API.md) with canned
// answers, and counts every request that reaches it. With `upstream` it forwards each request to
// a real service instead (still counting), so the same adapter tests can run against the real
// thing: set ULTIMATE_SERVICE_URL=http://127.0.0.1:PORT.
import http from 'node:http';
import { deflateSync } from 'node:zlib';
import { closeServer, listenLoopback } from '../../../../common/index.js';
import { pathMatcher } from '../../../../services/ultimate-tool/api/paths.js';
import { ROUTE_LIST } from '../../../../services/ultimate-tool/api/routes.js';

export const IDS = {
  run: '0b7e6a3c-1f2d-4c5b-9a8e-7d6c5b4a3f21',
  baseline: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  job: '4a1f7c2e-8b3d-4e6f-a9c1-2d3e4f5a6b7c',
  probe: '6c5b4a3f-2e1d-4c0b-9a8f-7e6d5c4b3a29',
} as const;

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
}

export interface Answer {
  readonly status: number;
  /** A JSON value, or a raw string sent as is. */
  readonly body: unknown;
  readonly raw?: boolean;
}

type Override = (req: SeenRequest) => Answer | undefined | 'hang';

export interface FakeService {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** Answer matching requests differently (first override that returns an answer wins). */
  override(fn: Override): void;
  clearOverrides(): void;
  /** How many requests held open by a 'hang' override were closed by the client. */
  readonly abandoned: number;
  close(): Promise<void>;
}

/** A valid 1×1 PNG, built here so the test does not carry binary fixtures. */
export function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typeAndData));
    return Buffer.concat([len, typeAndData, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const idat = deflateSync(Buffer.from([0, 0x40, 0x30, 0xe0]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

const V = { api_schema_version: 13 } as const;

export function job(overrides: Record<string, unknown> = {}) {
  return {
    job_id: IDS.job,
    state: 'queued',
    test: 'passes',
    targets: ['vice'],
    repeat: 1,
    strict_gate: false,
    baseline_run_id: null,
    created_at: '2026-12-01T12:00:00.000Z',
    started_at: null,
    finished_at: null,
    progress: { completed_runs: 0, total_runs: 1, phase: 'queued' },
    run_ids: [],
    error: null,
    ...overrides,
  };
}

export function runRecord(runId: string = IDS.run) {
  return {
    run_record_schema_version: 9,
    run_id: runId,
    job_id: IDS.job,
    test: 'passes',
    target: 'vice',
    target_identity: { product: 'VICE (virtual)' },
    emulation: true,
    candidate: { artifact_sha256: 'a'.repeat(64), artifact_name: 'demo.prg', build: {} },
    started_at: '2026-12-01T12:00:01.000Z',
    finished_at: '2026-12-01T12:00:02.000Z',
    timings: { total_ms: 1000 },
    expectations: { d7ff: 0 },
    observations: { d7ff: 0 },
    status: 'passed',
    status_reason: 'the verdict $00 was written',
    screen_match: null,
    supporting_artifacts: [{ role: 'labels', format: 'acme-vicelabels', name: 'demo.labels', size: 10, sha256: 'b'.repeat(64) }],
    evidence: [{ name: 'screen.txt', media_type: 'text/plain', size: 5, sha256: 'c'.repeat(64) }],
    crash_state: null,
    comparison: null,
  };
}

/** The canned answer of each route, or undefined for an unknown route (→ 404 not-found). */
function cannedAnswer(req: SeenRequest): Answer | undefined {
  const { method, path } = req;
  const ok = (body: Record<string, unknown>, status = 200): Answer => ({ status, body: { ...V, ...body } });
  // Which route of the API's route table the request is (the service's own matching order).
  const route = ROUTE_LIST.find((r) => r.method === method && pathMatcher(r.path).test(path));
  const m = route ? pathMatcher(route.path).exec(path) : null;
  const routeName = route?.name;
  if (routeName === 'getProject') {
    return ok({
      project: {
        root: '/tmp/demo',
        manifest: { name: 'demo', build: { argv: ['make'] } },
        tests: [{ name: 'passes' }],
        ultimate_reu_image: null,
      },
    });
  }
  if (routeName === 'listTargets') {
    return ok({
      targets: [
        { target: 'vice', available: true, reason: null, emulation: true, description: 'virtual VICE' },
        { target: 'ultimate', available: false, reason: 'C64U_HOST is not set', emulation: false, description: 'Ultimate 64' },
      ],
    });
  }
  if (routeName === 'listRuns')
    return ok({
      runs: [
        {
          run_id: IDS.run,
          job_id: IDS.job,
          test: 'passes',
          target: 'vice',
          status: 'passed',
          emulation: true,
          artifact_sha256: 'a'.repeat(64),
          started_at: '2026-12-01T12:00:01.000Z',
          finished_at: '2026-12-01T12:00:02.000Z',
        },
      ],
      next_cursor: null,
    });
  if (routeName === 'getActiveJob') return ok({ job: null });
  if (routeName === 'startTestJob') return ok({ job: job(req.body as Record<string, unknown>) }, 201);
  if (routeName === 'probeUltimate') {
    const strict = (req.body as { strict_gate?: boolean })?.strict_gate ?? false;
    return ok(
      {
        probe: {
          probe_id: IDS.probe,
          expires_at: '2026-12-01T12:05:00.000Z',
          strict_gate: strict,
          identity: { product: 'Ultimate 64', unique_id: 'VIRTUAL' },
          firmware: '3.12',
          core: '1.45',
          capabilities: ['reset', 'run_prg'],
          emulation: true,
        },
      },
      201,
    );
  }
  if (routeName === 'compareRuns') {
    return ok({
      comparison_schema_version: 1,
      result: 'compared',
      baseline_run_id: req.query.baseline,
      candidate_run_id: req.query.candidate,
    });
  }
  if (routeName === 'getJob' && m) return ok({ job: job({ job_id: decodeURIComponent(m[1]!) }) });
  if (routeName === 'getRun' && m) return ok({ run: runRecord(decodeURIComponent(m[1]!)) });
  if (routeName === 'resolveAddress' && m) {
    return ok({
      resolver_schema_version: 2,
      result: 'resolved',
      address: 49152,
      address_hex: '$C000',
      symbols: [{ name: 'start', address: 49152 }],
      query: req.query,
    });
  }
  if (routeName === 'readEvidence' && m && m[2]) {
    const name = decodeURIComponent(m[2]);
    if (name === 'screen.txt')
      return ok({ evidence: { name, media_type: 'text/plain', size: 5, sha256: 'c'.repeat(64), kind: 'text', text: 'READY' } });
    if (name === 'screenshot.png') {
      const png = tinyPng();
      return ok({
        evidence: {
          name,
          media_type: 'image/png',
          size: png.length,
          sha256: 'd'.repeat(64),
          kind: 'image',
          base64: png.toString('base64'),
        },
      });
    }
    if (name === 'memory.bin') {
      // A careless service that sends bytes anyway: the adapter must not relay them.
      return ok({
        evidence: { name, media_type: 'application/octet-stream', size: 3, sha256: 'e'.repeat(64), kind: 'binary', base64: 'AAEC' },
      });
    }
    return { status: 404, body: { ...V, error: { code: 'evidence_not_registered', message: `no evidence named ${name} in this run` } } };
  }
  return undefined;
}

export async function startFakeService(options: { upstream?: string } = {}): Promise<FakeService> {
  const requests: SeenRequest[] = [];
  let overrides: Override[] = [];
  const hanging = new Set<http.ServerResponse>();
  let abandoned = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const text = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: text ? JSON.parse(text) : undefined,
      };
      requests.push(seen);
      if (options.upstream) return forward(options.upstream, req, text, res);
      let answer: Answer | undefined;
      for (const o of overrides) {
        const a = o(seen);
        if (a === 'hang') {
          hanging.add(res);
          res.on('close', () => {
            if (hanging.delete(res)) abandoned++;
          });
          return;
        }
        if (a) {
          answer = a;
          break;
        }
      }
      answer ??= cannedAnswer(seen) ?? {
        status: 404,
        body: { ...V, error: { code: 'not-found', message: `no route ${seen.method} ${seen.path}` } },
      };
      const body = answer.raw ? String(answer.body) : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  const port = await listenLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    override: (fn) => overrides.push(fn),
    clearOverrides: () => {
      overrides = [];
    },
    get abandoned() {
      return abandoned;
    },
    close: async () => {
      const held = [...hanging];
      hanging.clear();
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}

function forward(upstream: string, req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
  const target = new URL(req.url ?? '/', upstream);
  const out = http.request(target, { method: req.method, headers: { 'content-type': 'application/json' } }, (up) => {
    res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' });
    up.pipe(res);
  });
  out.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  out.end(body || undefined);
}
