// Shared test plumbing: an in-process session router behind a real McpServer/McpClient pair (so
// tools go through the registry and the wire), with HOME and every path pointed at temp dirs.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, McpServer, ToolRegistry, createLogger, parseToolPayload } from '../../../../src/index.js';
import type { ToolContext } from '../../../../src/index.js';
import { InMemoryTransport } from '../../../../transports/index.js';
import { createSessionRouter, type SessionRouter, type SessionRouterOptions } from '../../../../adapters/topup/routing/index.js';
import { repoRoot, binCommand } from '../../../helpers/bin.js';

export const standInDaemon = join(repoRoot, 'test', 'adapters', 'topup', 'routing', 'fixtures', 'stand-in-daemon.ts');

/** Remote `topup` wrapper that runs the stand-in daemon from source. */
export function standInWrapper(): string {
  const tsx = import.meta.resolve('tsx');
  return `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(standInDaemon)} "$@"\n`;
}

/**
 * The topup bin as tests run it (from source, like binCommand('topup')), and a remote-PATH wrapper
 * script that runs the same thing on the far side of sshd.
 */
export function topupCommand(): { command: string; args: string[]; wrapper: string } {
  // TOPUP_ROUTING_TEST_BIN=topup-opt runs these tests against the native-agent bin instead.
  const { command, args } = binCommand(process.env.TOPUP_ROUTING_TEST_BIN === 'topup-opt' ? 'topup-opt' : 'topup');
  const tsx = import.meta.resolve('tsx');
  const script = args[args.length - 1]!;
  return {
    command,
    args,
    wrapper: `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(script)} "$@"\n`,
  };
}

export interface Harness {
  router: SessionRouter;
  client: McpClient;
  call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; payload: any }>;
  close(): Promise<void>;
}

export async function startHarness(options: SessionRouterOptions): Promise<Harness> {
  const router = createSessionRouter({ log: () => {}, ...options });
  const tools = new ToolRegistry();
  tools.mount(router.tools);
  const server = new McpServer({
    name: 'topup',
    version: '0.1.0',
    protocolVersions: ['2024-11-05'],
    tools,
    instructions: () => router.describe(),
    logger: createLogger('test-topup', 'error'),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new McpClient({ name: 'test', version: '1' });
  await client.connect(b);
  return {
    router,
    client,
    async call(name, args) {
      const result = await client.callTool(name, args);
      return { isError: result.isError === true, payload: parseToolPayload(result) };
    },
    async close() {
      await client.close();
      await server.close();
      await router.close();
    },
  };
}

/** A ToolContext for calling router.forward directly. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    signal,
    requestId: 1,
    protocolVersion: '2024-11-05',
    progress() {},
    notify() {},
    log: createLogger('test', 'error'),
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Wait until `check` holds, polling every 50 ms, failing after `deadlineMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { existsSync };
