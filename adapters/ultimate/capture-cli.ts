// `ultimate-tool capture probe|prepare|cancel|start`: the two-step debug-stream capture from a
// shell. It calls the same service operations over HTTP as the MCP tools (through the same
// client), so the CLI, the adapter and a dashboard can never disagree about what a capture does.
// Answers are printed as the service's JSON on stdout; failures as one line on stderr.
import { EXIT_USAGE, UsageError } from '../../common/index.js';
import { UltimateToolError } from './envelope.js';
import { UltimateServiceClient } from './service-client.js';
import { DEFAULT_SERVICE_PORT } from './service-url.js';

const DEFAULT_SERVICE_URL = `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;

export const CAPTURE_USAGE = `usage:
  ultimate-tool capture probe [--strict-gate]
  ultimate-tool capture prepare --probe-id ID --receiver IPV4 [--test NAME] [--strict-gate]
  ultimate-tool capture cancel PREPARATION_ID
  ultimate-tool capture start PREPARATION_ID --confirmed-stream-start-count 1 --confirmed-stream-stop-count 1
                              [--confirmed-reset-count 1]
  every subcommand also takes --service-url http://127.0.0.1:PORT (default ${DEFAULT_SERVICE_URL})

A debug-stream capture in two steps (docs/ultimate/CAPTURES.md): probe the device and review its
identity; prepare (consumes the probe, touches nothing on the device) and review the stream
configuration and limits; then start with every count exactly 1 — or cancel. With --test
(currently timeline-probe) the capture is source-linked: prepare builds and validates the
analysis inputs, and start also needs --confirmed-reset-count 1. The service receives the stream
on --receiver (an IPv4 address of this machine the device can reach).`;

interface Parsed {
  sub: 'probe' | 'prepare' | 'cancel' | 'start';
  positional: string[];
  flags: Map<string, string | true>;
}

const VALUE_FLAGS = new Set([
  '--service-url',
  '--probe-id',
  '--receiver',
  '--test',
  '--confirmed-stream-start-count',
  '--confirmed-stream-stop-count',
  '--confirmed-reset-count',
]);
const BOOL_FLAGS = new Set(['--strict-gate']);

function parse(argv: string[]): Parsed | 'help' {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') return 'help';
  if (sub !== 'probe' && sub !== 'prepare' && sub !== 'cancel' && sub !== 'start')
    throw new UsageError(`unknown capture subcommand ${JSON.stringify(sub)}; expected probe, prepare, cancel or start`);
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--help' || a === '-h') return 'help';
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (flags.has(name)) throw new UsageError(`${name} given twice`);
    if (BOOL_FLAGS.has(name)) {
      if (eq > 0) throw new UsageError(`${name} takes no value`);
      flags.set(name, true);
    } else if (VALUE_FLAGS.has(name)) {
      const v = eq > 0 ? a.slice(eq + 1) : rest[++i];
      if (v === undefined || v === '') throw new UsageError(`${name} expects a value`);
      flags.set(name, v);
    } else throw new UsageError(`unknown option ${JSON.stringify(a)}`);
  }
  return { sub, positional, flags };
}

function count(flags: Map<string, string | true>, name: string): number {
  const v = flags.get(name);
  if (typeof v !== 'string') throw new UsageError(`${name} is required (the exact count you confirm; it must be 1)`);
  if (!/^[0-9]{1,4}$/.test(v)) throw new UsageError(`${name} expects a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

function required(flags: Map<string, string | true>, name: string): string {
  const v = flags.get(name);
  if (typeof v !== 'string') throw new UsageError(`${name} is required`);
  return v;
}

function onePositional(p: Parsed, what: string): string {
  if (p.positional.length !== 1) throw new UsageError(`expected exactly one ${what}, got ${p.positional.length}`);
  return p.positional[0]!;
}

/** Runs one capture subcommand; resolves with the exit status. */
export async function runCaptureCli(argv: string[]): Promise<number> {
  let p: Parsed | 'help';
  let client: UltimateServiceClient;
  try {
    p = parse(argv);
    if (p === 'help') {
      process.stdout.write(`${CAPTURE_USAGE}\n`);
      return 0;
    }
    const url = p.flags.get('--service-url');
    client = new UltimateServiceClient({ serviceUrl: typeof url === 'string' ? url : DEFAULT_SERVICE_URL });
  } catch (e) {
    if (e instanceof UsageError || e instanceof UltimateToolError) {
      process.stderr.write(`ultimate-tool capture: ${e.message}\n${CAPTURE_USAGE}\n`);
      return EXIT_USAGE;
    }
    throw e;
  }
  try {
    const answer = await run(p, client);
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ultimate-tool capture: ${e.message}\n${CAPTURE_USAGE}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof UltimateToolError) {
      process.stderr.write(`ultimate-tool capture ${p.sub}: ${e.error.code} (${e.error.layer}): ${e.error.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    client.close();
  }
}

async function run(p: Parsed, client: UltimateServiceClient): Promise<unknown> {
  const strict = p.flags.get('--strict-gate') === true;
  switch (p.sub) {
    case 'probe':
      if (p.positional.length) throw new UsageError('probe takes no arguments');
      return client.call('probeUltimate', { body: { strict_gate: strict } });
    case 'prepare': {
      if (p.positional.length) throw new UsageError('prepare takes options only');
      const test = p.flags.get('--test');
      const body = {
        probe_id: required(p.flags, '--probe-id'),
        receiver_ipv4: required(p.flags, '--receiver'),
        strict_gate: strict,
        ...(typeof test === 'string' ? { test } : {}),
      };
      return client.call(typeof test === 'string' ? 'prepareSourceLinkedCapture' : 'prepareDebugStreamCapture', { body });
    }
    case 'cancel':
      return client.call('cancelDebugStreamPreparation', { params: { preparation_id: onePositional(p, 'PREPARATION_ID') } });
    case 'start': {
      const id = onePositional(p, 'PREPARATION_ID');
      const sourceLinked = p.flags.has('--confirmed-reset-count');
      return client.startCapture(sourceLinked ? 'startSourceLinkedCapture' : 'startDebugStreamCapture', {
        params: { preparation_id: id },
        body: {
          confirmed_stream_start_count: count(p.flags, '--confirmed-stream-start-count'),
          confirmed_stream_stop_count: count(p.flags, '--confirmed-stream-stop-count'),
          ...(sourceLinked ? { confirmed_reset_count: count(p.flags, '--confirmed-reset-count') } : {}),
        },
      });
    }
  }
}
