// The tables of docs/ultimate/MCP.md and docs/ultimate/SERVICE-API.md against the wire declaration
// (services/ultimate-tool/api/: routes.ts, tools.ts). MCP.md's tool rows are checked — every tool
// listed, with its route's method and path and its input fields, `?` exactly on the optional ones —
// and SERVICE-API.md's table of every route is generated: a declaration change that the document
// does not show fails here. Regenerate that table with
//   ULTIMATE_DOC_TABLES=write node scripts/run-tests.mjs test/adapters/ultimate/doc-tables.test.ts
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { pathParamNames } from '../../../services/ultimate-tool/api/paths.js';
import { ROUTE_LIST, ROUTES } from '../../../services/ultimate-tool/api/routes.js';
import { TOOL_OF_ROUTE, TOOLS, type ToolName, type ToolSpec } from '../../../services/ultimate-tool/api/tools.js';
import { repoRoot } from '../../helpers/bin.js';

type Json = Record<string, unknown>;
const MCP_MD = join(repoRoot, 'docs/ultimate/MCP.md');
const SERVICE_API_MD = join(repoRoot, 'docs/ultimate/SERVICE-API.md');

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

function inputFields(spec: ToolSpec): Map<string, boolean> {
  const js = z.toJSONSchema(spec.input, { io: 'input', unrepresentable: 'any' }) as Json;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return new Map(Object.keys((js.properties as Json | undefined) ?? {}).map((k) => [k, required.has(k)]));
}

test('MCP.md: every tool is in its tables, with its route and its input fields as declared', () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const line of readFileSync(MCP_MD, 'utf8').split('\n')) {
    const row = line.startsWith('| `') ? cells(line) : [];
    const name = row[0]?.replace(/^`|`$/g, '') ?? '';
    if (!(name in TOOLS)) continue;
    const spec: ToolSpec = TOOLS[name as ToolName];
    const route = ROUTES[spec.route];
    const m = /^(GET|POST|DELETE) `([^`?]+)(?:\?([^`]*))?`$/.exec(row[2] ?? '');
    if (!m) problems.push(`${name}: route cell ${JSON.stringify(row[2])} is not METHOD \`path\``);
    else {
      if (m[1] !== route.method || m[2] !== route.path) problems.push(`${name}: ${m[1]} ${m[2]} ≠ ${route.method} ${route.path}`);
      const queryFields = Object.keys(route.query?.shape ?? {});
      for (const q of (m[3] ?? '').split('&').filter(Boolean)) {
        const field = q.replace(/=.*$/, '');
        if (!queryFields.includes(field)) problems.push(`${name}: query ${field} is not a query field of ${route.path}`);
      }
    }
    const fields = inputFields(spec);
    const named = new Map<string, boolean>();
    for (const token of ticked(row[1] ?? '')) {
      const f = /^([a-z0-9_]+)(\?)?$/.exec(token);
      if (f && fields.has(f[1]!)) named.set(f[1]!, f[2] === undefined);
      else if (f?.[2]) problems.push(`${name}: ${token} is not an input field`);
    }
    for (const [field, required] of named)
      if (fields.get(field) !== required) problems.push(`${name}: ${field} is ${fields.get(field) ? 'required' : 'optional'}`);
    // The first row of a tool is its whole input; later rows (the checkpoint table) name additions.
    if (!seen.has(name)) for (const field of fields.keys()) if (!named.has(field)) problems.push(`${name}: ${field} not listed`);
    seen.add(name);
  }
  for (const name of Object.keys(TOOLS)) if (!seen.has(name)) problems.push(`${name}: not in MCP.md`);
  assert.deepEqual(problems, []);
});

const BEGIN = '<!-- generated from services/ultimate-tool/api (test/adapters/ultimate/doc-tables.test.ts): begin -->';
const END = '<!-- generated: end -->';

function fieldList(schema: z.ZodType | undefined): string {
  if (!schema) return '';
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return Object.keys((js.properties as Json | undefined) ?? {})
    .map((k) => `\`${k}${required.has(k) ? '' : '?'}\``)
    .join(', ');
}

/** SERVICE-API.md's table of every route, from the route table and the tool table. */
function routeTable(): string {
  const rows = ROUTE_LIST.map((r) => {
    const query = fieldList(r.query);
    const body = fieldList(r.body);
    const request = [query && `query ${query}`, body && `body ${body}`].filter(Boolean).join('; ') || '–';
    const tool = TOOL_OF_ROUTE[r.name];
    return `| ${r.method} \`${r.path}\` | ${request} | ${r.status} | ${tool ? `\`${tool}\`` : '–'} | ${r.summary} |`;
  });
  return [
    BEGIN,
    '',
    '| route | request (path parameters in the path) | success | MCP tool | what it does |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    END,
  ].join('\n');
}

test('SERVICE-API.md: the table of every route is the declaration’s, and every route it names exists', () => {
  const text = readFileSync(SERVICE_API_MD, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  assert.ok(start >= 0 && end > start, `SERVICE-API.md has the generated block (${BEGIN} … ${END})`);
  const table = routeTable();
  if (process.env.ULTIMATE_DOC_TABLES === 'write') {
    writeFileSync(SERVICE_API_MD, text.slice(0, start) + table + text.slice(end + END.length));
  } else {
    assert.equal(text.slice(start, end + END.length), table, 'the generated route table is out of date');
  }
  // Every route named elsewhere in the document, as METHOD `path`, is one the table declares.
  const declared = new Set(ROUTE_LIST.map((r) => `${r.method} ${r.path}`));
  const unknown = [...text.matchAll(/\b(GET|POST|DELETE) `(\/v13\/[^`?]*)/g)].map((m) => `${m[1]} ${m[2]}`).filter((r) => !declared.has(r));
  assert.deepEqual(unknown, []);
  for (const r of ROUTE_LIST) assert.ok(pathParamNames(r.path).every((p) => r.path.includes(`{${p}}`)));
});
