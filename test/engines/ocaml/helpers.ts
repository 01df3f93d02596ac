// Shared setup for the topup tests: temp dirs that are always removed, engines with their own
// checkpoint dir and log, and the official MCP client launching the topup bin from source.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type AgentDriver, OcamlToplevel, type OcamlToplevelOptions } from '../../../engines/ocaml/index.js';
import { binCommand } from '../../helpers/bin.js';

/** One of the two commands of the topup server and the agent it runs. */
export interface TopupVariant {
  bin: 'topup' | 'topup-opt';
  driver: AgentDriver;
}

const VARIANTS: readonly TopupVariant[] = [
  { bin: 'topup', driver: 'bytecode' },
  { bin: 'topup-opt', driver: 'native' },
];

/**
 * The variants the topup suite runs against: both, unless TOPUP_TEST_BINS names some
 * (comma-separated, e.g. TOPUP_TEST_BINS=topup-opt). Every test file loops over these.
 */
export function topupVariants(): readonly TopupVariant[] {
  const wanted = process.env.TOPUP_TEST_BINS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!wanted?.length) return VARIANTS;
  const unknown = wanted.filter((w) => !VARIANTS.some((v) => v.bin === w));
  if (unknown.length) throw new Error(`TOPUP_TEST_BINS names ${unknown.join(', ')}; expected topup and/or topup-opt`);
  return VARIANTS.filter((v) => wanted.includes(v.bin));
}

export function tempDir(prefix = 'topup-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** An engine whose log and checkpoints live in a temp dir; close() removes everything. */
export function testEngine(options: OcamlToplevelOptions = {}): { engine: OcamlToplevel; dir: string; close: () => Promise<void> } {
  const dir = tempDir();
  const engine = new OcamlToplevel({
    logPath: join(dir.path, 'phrases.ml'),
    checkpointDir: join(dir.path, 'checkpoints'),
    spillDir: join(dir.path, 'spill'),
    interruptGraceMs: 1000,
    log: () => {},
    ...options,
  });
  return {
    engine,
    dir: dir.path,
    close: async () => {
      await engine.close();
      dir.remove();
    },
  };
}

/**
 * Environment for a topup bin under test: its own HOME (so ~/.topup stores, logs and checkpoints
 * stay in the temp dir) but the real agent cache, so the agent is not rebuilt per test.
 */
export function testEnv(home: string): Record<string, string> {
  const realCache = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache');
  return { HOME: home, XDG_CACHE_HOME: realCache, TOPUP_CHECKPOINT_DIR: join(home, 'cp'), TOPUP_LOG: join(home, 'log.ml') };
}

/** A topup bin (topup by default) on stdio, driven by the official MCP SDK client. */
export async function connectTopup(
  env: Record<string, string> = {},
  args: string[] = [],
  bin: TopupVariant['bin'] = 'topup',
): Promise<{ client: Client; close: () => Promise<void> }> {
  const { command, args: binArgs } = binCommand(bin, args);
  const transport = new StdioClientTransport({
    command,
    args: binArgs,
    env: { ...(process.env as Record<string, string>), TOPUP_INTERRUPT_GRACE_MS: '1000', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'topup-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** The JSON payload of a tool result (a single text item). */
export function payload(result: unknown): any {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return JSON.parse(content[0]!.text);
}

/**
 * A file that OCaml code creates once it is running (`marker.ocaml` is an OCaml expression of type
 * unit), so a test interrupts a loop only after it has really started — not while it is compiled.
 */
export function startedMarker(dir: string, name: string): { ocaml: string; wait: () => Promise<void> } {
  const path = join(dir, `${name}.started`);
  return {
    ocaml: `close_out (open_out ${JSON.stringify(path)})`,
    wait: async () => {
      const deadline = Date.now() + 30_000;
      while (!existsSync(path)) {
        if (Date.now() > deadline) throw new Error(`${name} never started (no ${path})`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}
