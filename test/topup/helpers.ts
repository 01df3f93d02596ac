// Shared setup for the topup tests: temp dirs that are always removed, engines with their own
// checkpoint dir and log, and the official MCP client launching the topup bin from source.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OcamlToplevel, type OcamlToplevelOptions } from '../../engines/ocaml/index.js';
import { binCommand } from '../helpers/bin.js';

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

/** The topup bin on stdio, driven by the official MCP SDK client. */
export async function connectTopup(env: Record<string, string> = {}, args: string[] = []): Promise<{ client: Client; close: () => Promise<void> }> {
  const { command, args: binArgs } = binCommand('topup', args);
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
