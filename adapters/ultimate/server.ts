// createUltimateToolServer: the MCP server of ultimate-tool-mcp over a typed service client.
import { McpServer, type Logger, packageVersion } from '../../src/index.js';
import { UltimateServiceClient } from './service-client.js';
import { createUltimateTools } from './tools.js';

export const ULTIMATE_SERVER_NAME = 'ultimate-tool-mcp';

export interface UltimateToolServerOptions {
  /** `http://127.0.0.1[:port]` of a running `ultimate-tool serve`. */
  serviceUrl: string;
  /** Per-request limit towards the service; default 30 s. */
  requestTimeoutMs?: number;
  logger?: Logger;
}

const INSTRUCTIONS =
  'Ultimate Tool: hardware-in-the-loop testing of Commodore 64 programs on VICE and an Ultimate 64, through the local ' +
  'Ultimate Tool service. Every tool answers {schema_version: 12, operation, data} or {schema_version: 12, operation, ' +
  'error: {code, layer, message, http_status?}}. Jobs are asynchronous: start_test_job returns a job_id; poll get_job ' +
  'until finished, then get_run each run_id and read_evidence its files. Before a job on the ultimate target: ' +
  'probe_ultimate, present the identity for review, and get explicit confirmation of the reset count (and of the REU ' +
  'write count when get_project has an ultimate_reu_image).';

/** An McpServer whose close() also closes the client's connections to the service. */
export class UltimateToolServer extends McpServer {
  constructor(
    readonly client: UltimateServiceClient,
    logger?: Logger,
  ) {
    super({
      name: ULTIMATE_SERVER_NAME,
      title: 'Ultimate Tool',
      version: packageVersion(),
      instructions: INSTRUCTIONS,
      tools: createUltimateTools(client),
      ...(logger ? { logger } : {}),
    });
  }

  override async close(): Promise<void> {
    await super.close();
    this.client.close();
  }
}

/** Throws UsageError when serviceUrl is not an http://127.0.0.1[:port] origin. */
export function createUltimateToolServer(options: UltimateToolServerOptions): UltimateToolServer {
  const client = new UltimateServiceClient({
    serviceUrl: options.serviceUrl,
    ...(options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {}),
  });
  return new UltimateToolServer(client, options.logger);
}
