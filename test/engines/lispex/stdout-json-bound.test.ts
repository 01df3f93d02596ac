// RunOptions.stdoutJsonLimit: stdout bounded on its size as a JSON string, which is what a JSON
// transport sends. The escaped length must be JSON.stringify's exactly, and an append past the
// bound must end the run as the output-byte axis does (output-limit, nothing of it appended or
// counted), on both routes alike.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LispexEvaluator } from '../../../engines/lispex/index.js';
import { jsonEscapedLength } from '../../../engines/lispex/run-context.js';

test('the escaped length is that of JSON.stringify, for every kind of character', () => {
  const samples = [
    '',
    'plain',
    '"',
    '\\',
    '\b\t\n\f\r',
    '\u0000\u0001\u001f',
    '\u007f',
    'é',
    '€',
    '😀',
    '\ud800',
    '\udc00x',
    'a\ud83d',
    '\u2028\u2029',
  ];
  let all = '';
  for (let c = 0; c < 0x900; c++) all += String.fromCharCode(c);
  samples.push(all);
  for (const s of samples)
    assert.equal(jsonEscapedLength(s), Buffer.byteLength(JSON.stringify(s), 'utf8') - 2, JSON.stringify(s).slice(0, 40));
});

test('an append past the JSON bound ends the run in output-limit on both routes', () => {
  const ev = new LispexEvaluator();
  for (const route of ['tree', 'vm'] as const) {
    // 5 bytes of UTF-8, 10 as JSON: within a 12-byte bound once, not twice.
    const source = '(display "\\"\\"\\"\\"\\"") (display "\\"\\"\\"\\"\\"")';
    const ok = ev.run('(display "\\"\\"\\"\\"\\"")', { route, stdoutJsonLimit: 12 });
    assert.equal(ok.status, 'ok');
    assert.equal(ok.stdout, '"""""');
    const o = ev.run(source, { route, stdoutJsonLimit: 12 });
    assert.equal(o.status, 'resource', route);
    assert.equal(o.diagnostics[0]?.code, 'output-limit');
    assert.equal(o.resource_outcome.limit, 'output-byte');
    assert.equal(o.resource_outcome.usage.output_bytes, 5);
    // Without the option only the UTF-8 meter applies.
    assert.equal(ev.run(source, { route }).status, 'ok');
  }
});
