// The four Lispex tools through the official MCP SDK client, in memory, on the real engine in
// real worker threads: closed requests, reference and diagnostic answers, evaluation results,
// and every fixed bound enforced before work.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LispexHost } from '../../../engines/lispex/host/index.js';
import catalog from '../../../engines/lispex/contracts/diagnostic-catalog.v1.json' with { type: 'json' };
import capabilities from '../../../engines/lispex/contracts/primitive-capabilities.v2.json' with { type: 'json' };
import { EvalResultSchema, FIXED_BOUNDS } from '../../../adapters/lispex/index.js';
import { utf8Length } from '../../../adapters/lispex/bounds.js';
import { CountingHost, connectInMemory, payload } from './helpers.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('Lispex tools over the official client (in memory)', () => {
  let realHost: LispexHost;
  let host: CountingHost;
  let client: Client;
  let close: () => Promise<void>;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  before(async () => {
    realHost = new LispexHost({ warmWorkers: 2 });
    host = new CountingHost(realHost);
    ({ client, close } = await connectInMemory(host));
  });
  after(async () => {
    await close();
    await realHost.close();
  });

  test('initialize: tools only, the product in serverInfo', () => {
    assert.deepEqual(client.getServerCapabilities(), { tools: {} });
    const info = client.getServerVersion();
    assert.equal(info?.name, 'mcp-engines-lispex');
    assert.match(client.getInstructions() ?? '', /tree-rust/);
  });

  test('tools/list: exactly the four tools, each request object closed', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['lispex_compare_routes', 'lispex_diagnostic', 'lispex_eval', 'lispex_reference']);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} request is closed`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`);
    }
    const referenceTool = tools.find((t) => t.name === 'lispex_reference')!;
    assert.deepEqual(referenceTool.inputSchema.dependentRequired, { name: ['topic'] }, 'name requires topic, in the schema too');
    const evalTool = tools.find((t) => t.name === 'lispex_eval')!;
    assert.deepEqual(evalTool.inputSchema.required, ['source']);
  });

  describe('closed request objects: an extra or wrong field is an error, never ignored', () => {
    const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
      ['reference with an extra field', 'lispex_reference', { topic: 'forms', extra: 1 }, /extra/],
      ['reference name without topic', 'lispex_reference', { name: 'car' }, /name requires topic/],
      ['reference unknown topic', 'lispex_reference', { topic: 'macros' }, /topic/],
      ['diagnostic with an extra field', 'lispex_diagnostic', { code: 'E300', verbose: true }, /verbose/],
      ['diagnostic code not matching ^[EW][0-9]{3}$', 'lispex_diagnostic', { code: 'E30' }, /\^\[EW\]\[0-9\]\{3\}\$/],
      ['diagnostic lower-case code', 'lispex_diagnostic', { code: 'e300' }, /code/],
      ['diagnostic recursion-limit is not a code of that form', 'lispex_diagnostic', { code: 'recursion-limit' }, /code/],
      ['eval without source', 'lispex_eval', {}, /source/],
      ['eval with a route field', 'lispex_eval', { source: '1', route: 'vm' }, /route/],
      ['eval with a path field', 'lispex_eval', { source: '1', path: '/etc/passwd' }, /path/],
      ['eval with a non-string input', 'lispex_eval', { source: 'input', input: 5 }, /input/],
      ['compare without court', 'lispex_compare_routes', { source: '1' }, /court/],
      ['compare with an unknown court', 'lispex_compare_routes', { court: 'tree-vm', source: '1' }, /court/],
      ['compare with a route list', 'lispex_compare_routes', { court: 'tree-rust', source: '1', routes: ['tree'] }, /routes/],
      ['compare with an executable', 'lispex_compare_routes', { court: 'rust-topaz', source: '1', executable: '/bin/true' }, /executable/],
    ];
    for (const [title, tool, args, mentions] of cases) {
      test(title, async () => {
        const before = host.jobs.length;
        const result = await call(tool, args);
        assert.equal(result.isError, true);
        assert.match(payload(result).error, mentions);
        assert.equal(host.jobs.length, before, 'nothing was evaluated');
      });
    }
  });

  describe('lispex_reference', () => {
    test('overview: profile identity and registry counts', async () => {
      const r = payload(await call('lispex_reference', {}));
      assert.equal(r.known, true);
      assert.equal(r.profile.id, 'lispex-profile-1.5');
      assert.equal(r.profile.resource_profile, 'lispex-mcp-local-authoring/v1');
      assert.equal(r.registry.primitive_rows, 205);
      assert.deepEqual(
        r.topics.map((t: { topic: string }) => t.topic),
        ['forms', 'procedures', 'reader', 'resources', 'routes'],
      );
    });

    test('procedures: all 205 rows of the capability contract, each exact by name', async () => {
      const list = payload(await call('lispex_reference', { topic: 'procedures' }));
      assert.equal(list.count, 205);
      const names = capabilities.rows.map((row) => row[1]);
      assert.deepEqual(
        list.entries.map((e: { name: string }) => e.name),
        names,
      );
      const car = payload(await call('lispex_reference', { topic: 'procedures', name: 'vector-set!' }));
      assert.equal(car.known, true);
      const row = capabilities.rows.find((r) => r[1] === 'vector-set!')!;
      assert.equal(car.entry.arity, row[4]);
      assert.equal(car.entry.implemented, true);
      const percent = payload(await call('lispex_reference', { topic: 'procedures', name: '%' }));
      assert.equal(percent.entry.deprecated_warning, 'W330');
      const callcc = payload(await call('lispex_reference', { topic: 'procedures', name: 'call/cc' }));
      assert.ok(callcc.entry.same_runtime_identity_as.includes('call-with-current-continuation'));
    });

    test('forms: 13 core and 12 derived, exact by contract id', async () => {
      const list = payload(await call('lispex_reference', { topic: 'forms' }));
      assert.equal(list.entries.filter((e: { class: string }) => e.class === 'core').length, 13);
      assert.equal(list.entries.filter((e: { class: string }) => e.class === 'derived').length, 12);
      const named = payload(await call('lispex_reference', { topic: 'forms', name: 'named-let' }));
      assert.equal(named.entry.keyword, 'let');
      assert.equal(named.entry.class, 'derived');
    });

    test('reader, resources and routes answer from the contracts', async () => {
      const reader = payload(await call('lispex_reference', { topic: 'reader' }));
      assert.equal(reader.entries.filter((e: { kind: string }) => e.kind === 'datum').length, 15);
      const axis = payload(await call('lispex_reference', { topic: 'resources', name: 'output-byte' }));
      assert.equal(axis.entry.limit, 1_048_576);
      assert.equal(axis.entry.exhaustion_code, 'output-limit');
      const bound = payload(await call('lispex_reference', { topic: 'resources', name: 'source' }));
      assert.equal(bound.entry.limit, 65_536);
      const court = payload(await call('lispex_reference', { topic: 'routes', name: 'rust-topaz' }));
      assert.equal(court.entry.available, false);
      assert.equal(court.entry.unavailable_reason, 'missing-startup-product');
      const vm = payload(await call('lispex_reference', { topic: 'routes', name: 'vm' }));
      assert.equal(vm.entry.opcodes.length, 22);
    });

    test('an unknown name answers known:false', async () => {
      for (const topic of ['forms', 'procedures', 'reader', 'resources', 'routes']) {
        const r = await call('lispex_reference', { topic, name: 'define-syntax' });
        assert.equal(r.isError, false);
        assert.deepEqual(
          { topic: payload(r).topic, name: payload(r).name, known: payload(r).known },
          { topic, name: 'define-syntax', known: false },
        );
      }
    });
  });

  describe('lispex_diagnostic', () => {
    test('every E/W catalog code answers its exact row and a raising condition', async () => {
      const rows = catalog.rows.filter((row) => /^[EW][0-9]{3}$/.test(row[0] as string));
      assert.equal(rows.length, 23);
      for (const row of rows) {
        const r = await call('lispex_diagnostic', { code: row[0] as string });
        const answer = payload(r);
        assert.equal(answer.known, true);
        assert.deepEqual(Object.values(answer.row), row, `row of ${row[0]}`);
        assert.deepEqual(Object.keys(answer.row), catalog.columns);
        assert.ok(answer.raising_condition.length > 20, `raising condition of ${row[0]}`);
        assert.deepEqual(r.structuredContent, answer);
      }
    });

    test('an unknown code answers known:false', async () => {
      const answer = payload(await call('lispex_diagnostic', { code: 'E999' }));
      assert.deepEqual(answer, {
        code: 'E999',
        known: false,
        catalog: 'lispex.diagnostic-catalog/v1',
        row: null,
        raising_condition: null,
      });
    });
  });

  describe('lispex_eval', () => {
    test('a value nested deeper than the projection limit is delivered, cut with kind too-deep', async () => {
      const source = "(let loop ((i 0) (x '())) (if (< i 501) (loop (+ i 1) (list x)) x))";
      const r = await call('lispex_eval', { source });
      assert.equal(r.isError, false, JSON.stringify(r.content).slice(0, 300));
      const result = payload(r);
      assert.equal(result.status, 'ok');
      assert.ok(EvalResultSchema.safeParse(result).success);
      assert.match(JSON.stringify(result.values[0].value), /"kind":"too-deep"/);
      assert.equal(result.values[0].portable, false);
    });

    test('a value, its identities and the fixed flags', async () => {
      const source = '(define (square x) (* x x))\n(square 12)';
      const r = await call('lispex_eval', { source });
      assert.equal(r.isError, false);
      const result = payload(r);
      assert.deepEqual(r.structuredContent, result);
      assert.ok(EvalResultSchema.safeParse(result).success);
      assert.equal(result.schema, 'lispex.mcp-eval-result/v1');
      assert.equal(result.status, 'ok');
      assert.equal(result.exit_status, 0);
      assert.deepEqual(result.values, [{ portable: true, value: { kind: 'integer', value: '144' }, printed: '144' }]);
      assert.equal(result.engine.role, 'rust-tree');
      assert.equal(result.engine.route, 'tree');
      assert.equal(result.identity.source_sha256, sha256(source));
      assert.equal(result.identity.input_sha256, null);
      assert.equal(result.identity.profile_id, 'lispex-mcp-local-authoring/v1');
      assert.equal(result.identity.language_profile, 'lispex-profile-1.5');
      assert.equal(result.resource_outcome.profile_id, 'lispex-mcp-local-authoring/v1');
      assert.equal(result.resource_outcome.status, 'within-limits');
      assert.equal(result.source_retained, false);
      assert.equal(result.semantic_equivalence_proved, false);
      assert.equal(result.vouch_authority, false);
      assert.deepEqual(result.forbidden_fallback_counts, { backend: 0, route: 0, profile: 0, retry: 0 });
      assert.ok(!JSON.stringify(result).includes('square x'), 'the source is not echoed');
      assert.equal(host.options.at(-1)?.wallClockMs, 5_000);
      assert.equal(host.jobs.at(-1)?.route, 'tree');
    });

    test('every value kind is projected within the output schema', async () => {
      const source =
        '(define v (vector 1)) (vector-set! v 0 v) ' +
        "(values '() #t 12345678901234567890 -1/3 2.5 #\\x3bb 'sym \"str\" '(1 2) '(1 . 2) #(1) #u8(7) car (lambda (x) x) " +
        '(guard (e (#t e)) (error "boom" 1)) v)';
      const r = await call('lispex_eval', { source });
      assert.equal(r.isError, false, JSON.stringify(payload(r)).slice(0, 300));
      const result = payload(r);
      assert.deepEqual(r.structuredContent, result);
      assert.deepEqual(
        result.values.map((v: { value: { kind: string } }) => v.value.kind),
        [
          'nil',
          'boolean',
          'integer',
          'rational',
          'finite-real',
          'character',
          'symbol',
          'string',
          'proper-list',
          'improper-list',
          'vector',
          'bytevector',
          'procedure',
          'procedure',
          'error-object',
          'vector',
        ],
      );
      assert.deepEqual(
        result.values.slice(0, 15).map((v: { portable: boolean }) => v.portable),
        [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false],
      );
      // A vector that contains itself: the inner occurrence is projected as cyclic.
      assert.equal(result.values[15].value.items[0].kind, 'cyclic');
      assert.equal(result.values[15].printed, '#0=#(#0#)');
    });

    test('input is bound as input, and hashed', async () => {
      const input = '(3 "four" #\\5)';
      const result = payload(await call('lispex_eval', { source: '(cadr input)', input }));
      assert.equal(result.status, 'ok');
      assert.equal(result.values[0].printed, '"four"');
      assert.equal(result.identity.input_sha256, sha256(input));
    });

    test('stdout and warnings in order', async () => {
      const result = payload(await call('lispex_eval', { source: '(display "a") (% 7 2) (display "b") (list-first (list 1))' }));
      assert.equal(result.status, 'ok');
      assert.equal(result.stdout.text, 'ab');
      assert.equal(result.stdout.byte_length, 2);
      assert.equal(result.stdout.sha256, sha256('ab'));
      assert.deepEqual(
        result.warnings.map((w: { code: string }) => w.code),
        ['W330', 'W331'],
      );
      assert.equal(result.values[0].printed, '1');
    });

    test('a runtime error is an ordinary result: earlier output kept, exit 1', async () => {
      const r = await call('lispex_eval', { source: '(display "before")\n(car 5)\n(display "after")' });
      assert.equal(r.isError, false);
      const result = payload(r);
      assert.equal(result.status, 'runtime-error');
      assert.equal(result.exit_status, 1);
      assert.equal(result.stdout.text, 'before');
      assert.equal(result.diagnostics.length, 1);
      assert.equal(result.diagnostics[0].code, 'E310');
      assert.match(result.diagnostics[0].rendered, /^E310 source:2:1 /);
    });

    test('a reader error is an ordinary result with status source-error', async () => {
      const result = payload(await call('lispex_eval', { source: '(display "x"' }));
      assert.equal(result.status, 'source-error');
      assert.equal(result.diagnostics[0].code, 'E100');
      assert.equal(result.stdout.text, '');
    });

    // Output within the profile's 1 MiB of UTF-8 that JSON escaping would take past the 1 MiB
    // result bound: the output-limit outcome, a delivered result, never a refused one.
    for (const [what, char, count] of [
      ['600,000 double quotes', '#\\"', 600_000],
      ['300,000 control characters (\\u0001, 6 bytes each in JSON)', '#\\x1', 300_000],
    ] as const) {
      test(`stdout of ${what} ends in output-limit, bounded on its JSON size`, { timeout: 60_000 }, async () => {
        const source = `(display "before") (newline) (display (make-string ${count} ${char}))`;
        const r = await call('lispex_eval', { source });
        assert.equal(r.isError, false, JSON.stringify(r.content).slice(0, 300));
        const result = payload(r);
        assert.equal(result.status, 'resource');
        assert.equal(result.exit_status, 2);
        assert.deepEqual(
          result.diagnostics.map((d: { code: string }) => d.code),
          ['output-limit'],
        );
        assert.equal(result.resource_outcome.limit, 'output-byte');
        assert.equal(result.stdout.text, '');
        // Only the admitted appends are counted: "before" and the newline, not the denied one.
        assert.equal(result.resource_outcome.usage.output_bytes, 7);
        assert.ok(utf8Length(JSON.stringify(result)) <= FIXED_BOUNDS.evalResultBytes);
      });
    }

    test('stdout just inside its JSON bound is delivered whole', { timeout: 60_000 }, async () => {
      const r = await call('lispex_eval', { source: '(display (make-string 400000 #\\"))' });
      assert.equal(r.isError, false, JSON.stringify(r.content).slice(0, 300));
      const result = payload(r);
      assert.equal(result.status, 'ok');
      assert.equal(result.stdout.byte_length, 400_000);
      assert.equal(result.stdout.text.length, 400_000);
    });

    test('a runaway loop ends by the meter, not by the 5,000 ms wall clock', { timeout: 60_000 }, async () => {
      // The default profile's 100,000,000 machine transitions take the tree route about 1 s of
      // CPU on this loop (docs/performance/lispex.md), so the outcome is the meter's — the same
      // code every time — rather than whichever of meter and wall clock comes first.
      const r = await call('lispex_eval', { source: '(let loop ((i 0)) (loop (+ i 1)))' });
      assert.equal(r.isError, false, JSON.stringify(r.content).slice(0, 300));
      const result = payload(r);
      assert.equal(result.status, 'resource');
      assert.equal(result.diagnostics[0].code, 'machine-transition-limit');
      assert.equal(result.resource_outcome.limit, 'machine-transition');
      assert.equal(result.resource_outcome.usage.machine_transitions, 100_000_000);
    });

    test('meter exhaustion: status resource, exit 2, empty stdout, one diagnostic', async () => {
      const result = payload(
        await call('lispex_eval', { source: '(define s (make-string 50000 #\\a)) (define (spam) (display s) (spam)) (spam)' }),
      );
      assert.equal(result.status, 'resource');
      assert.equal(result.exit_status, 2);
      assert.equal(result.stdout.text, '');
      assert.equal(result.resource_outcome.status, 'limit-exceeded');
      assert.equal(result.resource_outcome.limit, 'output-byte');
      assert.equal(result.diagnostics.length, 1);
    });
  });

  describe('host safety and cancellation', () => {
    test('deep non-tail recursion ends in recursion-limit inside the worker (no JS stack overflow)', async () => {
      const result = payload(await call('lispex_eval', { source: '(define (f n) (+ 1 (f n))) (display "x") (f 1)' }));
      assert.equal(result.status, 'resource');
      assert.equal(result.exit_status, 2);
      assert.equal(result.stdout.text, '');
      assert.equal(result.resource_outcome.limit, 'non-tail-call-depth');
      assert.deepEqual(
        result.diagnostics.map((d: { code: string }) => d.code),
        ['recursion-limit'],
      );
      assert.ok(result.metrics.call_depth_limit > 0);
    });

    test('a cancelled call terminates its worker (the host reports cancelled)', async () => {
      const controller = new AbortController();
      const before = host.jobs.length;
      const pending = client.callTool(
        { name: 'lispex_eval', arguments: { source: '(let loop ((x (expt 7 300000))) (loop (* x 7)))' } },
        undefined,
        { signal: controller.signal },
      );
      await waitFor(() => host.jobs.length > before);
      controller.abort();
      await assert.rejects(pending);
      await waitFor(() => host.outcomes.length > before);
      assert.equal(host.outcomes.at(-1)?.kind, 'cancelled');
    });
  });

  describe('fixed bounds, enforced before any evaluation', () => {
    // é is two UTF-8 bytes: the bound counts bytes, not characters.
    const padded = (bytes: number): string => `1;${'é'.repeat((bytes - 3) / 2)}x`;

    test(`source: ${FIXED_BOUNDS.sourceBytes} bytes run, one more byte is refused unevaluated`, async () => {
      const exact = `${padded(FIXED_BOUNDS.sourceBytes - 1)} `;
      assert.equal(Buffer.byteLength(exact), 65_536);
      assert.equal(payload(await call('lispex_eval', { source: exact })).status, 'ok');
      const before = host.jobs.length;
      const r = await call('lispex_eval', { source: `${exact} ` });
      assert.equal(r.isError, true);
      assert.deepEqual(
        { bound: payload(r).bound, limit: payload(r).limit_bytes, actual: payload(r).actual_bytes },
        { bound: 'source', limit: 65_536, actual: 65_537 },
      );
      const c = await call('lispex_compare_routes', { court: 'tree-rust', source: `${exact} ` });
      assert.equal(payload(c).bound, 'source');
      assert.equal(host.jobs.length, before);
    });

    test(`input datum: ${FIXED_BOUNDS.inputDatumBytes} bytes accepted, one more refused unevaluated`, async () => {
      const datum = (bytes: number): string => `"${'é'.repeat((bytes - 2) / 2)}"`;
      const exact = datum(16_384);
      assert.equal(Buffer.byteLength(exact), 16_384);
      const ok = payload(await call('lispex_eval', { source: '(string-length input)', input: exact }));
      assert.equal(ok.values[0].printed, String((16_384 - 2) / 2));
      const before = host.jobs.length;
      const r = await call('lispex_eval', { source: 'input', input: `${exact} ` });
      assert.equal(payload(r).bound, 'input-datum');
      assert.equal(payload(r).actual_bytes, 16_385);
      const c = await call('lispex_compare_routes', { court: 'tree-rust', source: 'input', input: `${exact} ` });
      assert.equal(payload(c).bound, 'input-datum');
      assert.equal(host.jobs.length, before);
    });

    test('source that is not UTF-8 text (a lone surrogate) is refused unevaluated', async () => {
      const before = host.jobs.length;
      const r = await call('lispex_eval', { source: '"\ud800"' });
      assert.equal(r.isError, true);
      assert.match(payload(r).error, /lone UTF-16 surrogate/);
      assert.equal(host.jobs.length, before);
    });

    test('256 diagnostics and warnings are delivered; 257 are refused', async () => {
      const warn = (n: number) => `(define (w n) (if (> n 0) (begin (% 1 1) (w (- n 1))))) (w ${n})`;
      const ok = payload(await call('lispex_eval', { source: warn(256) }));
      assert.equal(ok.warnings.length, 256);
      const r = await call('lispex_eval', { source: warn(257) });
      assert.equal(r.isError, true);
      assert.deepEqual(
        { failure: payload(r).failure, bound: payload(r).bound, actual: payload(r).actual, limit: payload(r).limit },
        { failure: 'bound-exceeded', bound: 'diagnostics-and-warnings', actual: 257, limit: 256 },
      );
    });

    test('an evaluation result over 1 MiB is refused, not truncated', async () => {
      // A value of 600,000 characters, projected and printed: about 1.2 MB of result, under the
      // 3 MiB transfer cap. (Stdout cannot do this: it is bounded on its JSON size, see above.)
      const r = await call('lispex_eval', { source: '(make-string 600000 #\\a)' });
      assert.equal(r.isError, true);
      const p = payload(r);
      assert.equal(p.bound, 'evaluation-result');
      assert.equal(p.limit, 1_048_576);
      assert.ok(p.actual > 1_048_576);
      assert.equal(p.status, 'ok');
    });

    test('an observation far over the bound never crosses the thread boundary', async () => {
      // About 4.6 MB of projection and printed form: over the 3 MiB transfer cap of an evaluation.
      const r = await call('lispex_eval', { source: '(make-list 20000 (make-string 100 #\\a))' });
      assert.equal(r.isError, true);
      assert.equal(payload(r).bound, 'evaluation-result');
      assert.equal(host.outcomes.at(-1)?.kind, 'over-bound');
    });
  });
});

async function waitFor(condition: () => boolean, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached before the deadline');
    await new Promise((r) => setTimeout(r, 5));
  }
}
