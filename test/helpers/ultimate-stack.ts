// The Ultimate Tool as a user runs it, for end-to-end tests: a copy of the example project, the
// real service process (`ultimate-tool serve` with a virtual Ultimate 64 and `ultimate-tool
// virtual-vice` as the emulator) and adapter clients (`ultimate-tool-mcp` under the official SDK
// client). Built bins from dist/: npm test builds first.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot } from './bin.js';

export const distBin = (name: string) => join(repoRoot, 'dist', 'bin', `${name}.js`);

export interface UltimateStack {
  work: string;
  project: string;
  store: string;
  service: ChildProcess;
  serviceUrl: string;
  /** The service's startup line (url, store, virtual_device, bench_url …). */
  serviceInfo: Record<string, unknown>;
  /** The SDK client on an adapter pointed at the service. */
  client: Client;
  /** Another adapter (an SDK client on its own ultimate-tool-mcp process) for any service URL. */
  adapter(url: string): Promise<Client>;
  close(): Promise<void>;
}

/** `projectDir`: the project copied for the service (default: the example project). */
export async function startUltimateStack(
  name: string,
  serveArgs: string[] = [],
  projectDir = join(repoRoot, 'examples', 'c64-project'),
): Promise<UltimateStack> {
  const work = mkdtempSync(join(tmpdir(), `${name}-`));
  const project = join(work, 'project');
  const store = join(work, 'store');
  cpSync(projectDir, project, { recursive: true, filter: (p) => !p.startsWith(join(projectDir, 'build')) });
  const service = spawn(
    process.execPath,
    [
      distBin('ultimate-tool'),
      'serve',
      '--project',
      project,
      '--port',
      '0',
      '--store',
      store,
      '--virtual-device',
      '--vice-command',
      `${process.execPath} ${distBin('ultimate-tool')} virtual-vice`,
      ...serveArgs,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // The service prints one JSON line with its URL once it listens.
  const serviceInfo = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = '';
    service.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    service.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  const serviceUrl = String(serviceInfo.url);
  const clients: Client[] = [];
  const adapter = async (url: string): Promise<Client> => {
    const c = new Client({ name, version: '1' });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [distBin('ultimate-tool-mcp'), '--service-url', url],
        stderr: 'inherit',
      }),
    );
    clients.push(c);
    return c;
  };
  const client = await adapter(serviceUrl);
  return {
    work,
    project,
    store,
    service,
    serviceUrl,
    serviceInfo,
    client,
    adapter,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      service.kill('SIGTERM');
      await new Promise((r) => (service.exitCode !== null ? r(null) : service.once('exit', r)));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
