// What tools/list shows of the adapter's schemas against what its tools enforce (issue 22: the list
// was ~70 KB). The shown schemas may only widen the enforced ones — a keyword dropped, never one
// added or changed, save the three patterns shown as their formats — and must keep every field:
// the same input fields and required ones, the envelope's four fields, every field of data, and
// the contract's error fields. The size bound itself is measured through the real bin in
// test/package/tool-list-size.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createUltimateTools, ULTIMATE_TOOL_NAMES } from '../../../adapters/ultimate/index.js';
import { UltimateServiceClient } from '../../../adapters/ultimate/service-client.js';
import { IPV4, UUID_V4_ANY_CASE } from '../../../services/ultimate-tool/api/fields.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const PROTOCOL = '2025-06-18';

const client = new UltimateServiceClient({ serviceUrl: 'http://127.0.0.1:1' });
const shown = new Map(
  createUltimateTools(client)
    .list(PROTOCOL)
    .map((t) => [t.name, t]),
);
const whole = new Map(
  createUltimateTools(client, {})
    .list(PROTOCOL)
    .map((t) => [t.name, t]),
);
client.close();

/** Keywords whose values are subschemas (or maps/lists of them); anything else is compared as a value. */
const SUBSCHEMA_MAPS = new Set(['properties']);
const SUBSCHEMAS = new Set(['items', 'additionalProperties']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf']);
/** The formats shown in place of a pattern, and the one pattern each may stand for. */
const FORMATS = new Map([
  ['uuid', UUID_V4_ANY_CASE.source],
  ['ipv4', IPV4.source],
]);

/** Problems that make `a` narrower than or different from `b` (empty: `a` only drops keywords of `b`). */
function onlyWidens(a: Json, b: Json, at: string, problems: string[]): void {
  // A nullable shown as a type list says what the anyOf of bare types says.
  if (Array.isArray(a.type) && !('type' in b) && Array.isArray(b.anyOf)) {
    const types = (b.anyOf as Json[]).map((s) => s.type);
    if (JSON.stringify(a.type) !== JSON.stringify(types))
      problems.push(`${at}: type list ${JSON.stringify(a.type)} ≠ anyOf ${JSON.stringify(types)}`);
    return;
  }
  for (const [key, value] of Object.entries(a)) {
    const where = `${at}.${key}`;
    if (key === 'format' && !('format' in b)) {
      if (FORMATS.get(String(value)) !== b.pattern)
        problems.push(`${where}: format ${String(value)} shown for pattern ${String(b.pattern)}`);
      continue;
    }
    if (!(key in b)) {
      problems.push(`${where}: added`);
      continue;
    }
    const other = b[key];
    if (SUBSCHEMA_MAPS.has(key) && isObject(value) && isObject(other)) {
      for (const [name, sub] of Object.entries(value)) {
        if (!isObject(other[name])) problems.push(`${where}.${name}: added`);
        else onlyWidens(sub as Json, other[name] as Json, `${where}.${name}`, problems);
      }
    } else if (SUBSCHEMAS.has(key) && isObject(value) && isObject(other)) {
      onlyWidens(value, other, where, problems);
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value) && Array.isArray(other)) {
      if (value.length !== other.length) problems.push(`${where}: ${value.length} branches ≠ ${other.length}`);
      else for (const [i, sub] of value.entries()) onlyWidens(sub as Json, other[i] as Json, `${where}[${i}]`, problems);
    } else if (key === 'required') {
      const extra = (value as string[]).filter((r) => !(other as string[]).includes(r));
      if (extra.length) problems.push(`${where}: requires ${extra.join(', ')} beyond the enforced schema`);
    } else if (JSON.stringify(value) !== JSON.stringify(other)) {
      problems.push(`${where}: ${JSON.stringify(value)} ≠ ${JSON.stringify(other)}`);
    }
  }
}

test('the same 30 tools, titles and annotations, whole or short', () => {
  assert.deepEqual([...shown.keys()].sort(), [...ULTIMATE_TOOL_NAMES].sort());
  assert.deepEqual([...whole.keys()].sort(), [...ULTIMATE_TOOL_NAMES].sort());
  for (const [name, tool] of shown) {
    assert.equal(tool.title, whole.get(name)!.title);
    assert.deepEqual(tool.annotations, whole.get(name)!.annotations);
  }
});

test('inputs: every field, every required field, and nothing narrower than what is enforced', () => {
  const problems: string[] = [];
  for (const [name, tool] of shown) {
    const full = whole.get(name)!.inputSchema;
    assert.deepEqual(Object.keys(tool.inputSchema.properties as Json).sort(), Object.keys(full.properties as Json).sort(), name);
    assert.deepEqual(tool.inputSchema.required, full.required, `${name} required`);
    assert.equal(tool.inputSchema.additionalProperties, false, `${name} input is closed`);
    onlyWidens(tool.inputSchema, full, `${name}.input`, problems);
  }
  assert.deepEqual(problems, []);
});

test('outputs: the envelope, every field of data, the contract’s error fields, nothing narrower than enforced', () => {
  const problems: string[] = [];
  for (const [name, tool] of shown) {
    const out = tool.outputSchema as Json & { properties: Record<string, Json> };
    const full = whole.get(name)!.outputSchema as Json & { properties: Record<string, Json> };
    assert.deepEqual(Object.keys(out.properties).sort(), ['data', 'error', 'operation', 'schema_version'], name);
    assert.deepEqual(out.properties.schema_version, { const: 12 }, name);
    assert.deepEqual(out.required, ['schema_version', 'operation'], name);
    const dataFields = (s: Json) => Object.keys((s.properties as Json | undefined) ?? {}).sort();
    assert.deepEqual(dataFields(out.properties.data!), dataFields(full.properties.data!), `${name}: every field of data is named`);
    assert.deepEqual(Object.keys(out.properties.error!.properties as Json).sort(), ['code', 'http_status', 'layer', 'message'], name);
    assert.deepEqual(out.properties.error!.required, ['code', 'layer', 'message'], name);
    onlyWidens(out, full, `${name}.output`, problems);
  }
  assert.deepEqual(problems, []);
});

test('the versions of the inner contracts stay visible in data', () => {
  const constOf = (tool: string, field: string) => {
    const out = shown.get(tool)!.outputSchema as { properties: { data: { properties: Record<string, Json> } } };
    return out.properties.data.properties[field]?.const;
  };
  assert.equal(constOf('get_job', 'api_schema_version'), 13);
  assert.equal(constOf('resolve_address', 'resolver_schema_version'), 2);
  assert.equal(constOf('get_crash_report', 'crash_analysis_schema_version'), 2);
  assert.equal(constOf('get_run_diagnostic_report', 'diagnostic_report_schema_version'), 1);
  assert.equal(constOf('compare_run_checkpoints', 'checkpoint_comparison_schema_version'), 1);
  assert.equal(constOf('get_checkpoint_comparison', 'checkpoint_comparison_record_schema_version'), 1);
});
