// The tool list the contract fixes (names, titles, descriptions, annotations, input and output
// JSON Schemas as advertised), for every protocol version the adapter speaks, against the
// snapshot taken before issue 32 generated the tools from the service's wire declaration
// (test/fixtures/ultimate-mcp/tools-list.json). A difference is a change of the advertised
// contract: if the contract demands it, regenerate the snapshot with
//   ULTIMATE_TOOLS_SNAPSHOT=write node scripts/run-tests.mjs test/adapters/ultimate/tools-list-snapshot.test.ts
// and say why in the commit.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createUltimateToolServer } from '../../../adapters/ultimate/index.js';
import { createLogger, McpClient, PROTOCOL_VERSIONS } from '../../../src/index.js';
import { InMemoryTransport } from '../../../transports/index.js';
import { repoRoot } from '../../helpers/bin.js';

const SNAPSHOT = join(repoRoot, 'test/fixtures/ultimate-mcp/tools-list.json');

async function toolsList(protocolVersion: string): Promise<unknown> {
  // Nothing is called, so the service need not exist.
  const server = createUltimateToolServer({ serviceUrl: 'http://127.0.0.1:1', logger: createLogger('test', 'error') });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // 2026-07-28 is the stateless era (server/discover, per-request _meta); the others the handshake.
  const era = protocolVersion >= '2026-07-28' ? 'modern' : 'legacy';
  const client = new McpClient({ name: 'snapshot', version: '1' }, { protocolVersion, era, logger: createLogger('test', 'error') });
  await client.connect(clientSide);
  try {
    assert.equal(client.protocolVersion, protocolVersion);
    return await client.listTools();
  } finally {
    await client.close();
    await server.close();
  }
}

test('tools/list is the snapshot, for every protocol version', async () => {
  const now: Record<string, unknown> = {};
  for (const version of PROTOCOL_VERSIONS) now[version] = await toolsList(version);
  if (process.env.ULTIMATE_TOOLS_SNAPSHOT === 'write') writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 1)}\n`);
  const expected = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(now), Object.keys(expected));
  for (const version of PROTOCOL_VERSIONS) {
    // JSON text, so key order (which the wire shows) counts too.
    assert.equal(JSON.stringify(now[version]), JSON.stringify(expected[version]), `tools/list ${version}`);
  }
});
