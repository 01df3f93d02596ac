// lispex_eval builds its answer itself (rawResult: constants made once, JSON encoded once, no
// per-call schema check by the registry). This proves the answer is byte for byte what the
// checked path gives — the registry building the result from the same object under the tool's
// output schema, as every tool without a raw result does — on observations of every kind (a
// value, output, a warning, source and runtime errors, a resource limit, non-ASCII text), for the
// protocol version that carries structuredContent and for one that does not, and that every one
// of those answers is inside the output schema the registry would have checked.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { ToolRegistry, silentLogger, type ToolContext } from '../../../src/index.js';
import { createLispexTools, type EvaluationHost } from '../../../adapters/lispex/index.js';
import { MCP_SOURCE_ID } from '../../../adapters/lispex/tools.js';
import { profileIdentity } from '../../../adapters/lispex/reference.js';
import { EVAL_RESULT_SCHEMA_ID, type EvalResult } from '../../../adapters/lispex/result-schemas.js';
import { EvalResultOutput } from '../../../adapters/lispex/result-wire-schemas.js';
import { routeObservation } from '../../../adapters/lispex/route-observation.js';
import { STDOUT_JSON_BYTES } from '../../../adapters/lispex/bounds.js';
import { packageVersion } from '../../../src/index.js';
import { LispexEvaluator, type Observation } from '../../../engines/lispex/index.js';
import type { EvaluationJob, HostOutcome } from '../../../engines/lispex/host/index.js';

const PROGRAMS: readonly string[] = [
  '(+ 1 2)',
  '(display "héllo, wörld ✓ \\x1F600;") (newline) (list 1 2.5 "s" #\\a (quote sym))',
  '(values 1 2 3)',
  '(define x 1)',
  '(car 5)',
  '(+ 1',
  '(let loop () (display "0123456789abcdef") (loop))',
  '(define (f) (g)) 1',
  '(vector 1 (list 2 3) (string->symbol "with space"))',
  '(display (make-string 3000 #\\")) 7',
];

const HOST_MS = 1.234;

/** A host that answers with a real in-process observation and a fixed host time. */
class InProcessHost implements EvaluationHost {
  private readonly ev = new LispexEvaluator();
  async evaluate(job: EvaluationJob): Promise<HostOutcome> {
    const observation = this.ev.run(job.source, {
      route: job.route,
      ...(job.input !== undefined ? { input: job.input } : {}),
      sourceId: job.sourceId ?? MCP_SOURCE_ID,
      ...(job.stdoutJsonLimit !== undefined ? { stdoutJsonLimit: job.stdoutJsonLimit } : {}),
    });
    // Fixed wall times, so both paths see the same observation.
    return { kind: 'completed', observation: { ...observation, metrics: { ...observation.metrics, wall_ms: 0.5 } }, hostMs: HOST_MS };
  }
}

/** lispex_eval as it was defined before: the registry checks the object and encodes it. */
function checkedPathRegistry(host: EvaluationHost): ToolRegistry {
  return new ToolRegistry().define({
    name: 'lispex_eval',
    description: 'the checked path',
    input: z.strictObject({ source: z.string(), input: z.string().optional() }),
    output: EvalResultOutput,
    handler: async ({ source, input }): Promise<EvalResult> => {
      const job: EvaluationJob = { source, route: 'tree', sourceId: MCP_SOURCE_ID, stdoutJsonLimit: STDOUT_JSON_BYTES };
      const outcome = await host.evaluate(input === undefined ? job : { ...job, input });
      if (outcome.kind !== 'completed') throw new Error(outcome.kind);
      return {
        schema: EVAL_RESULT_SCHEMA_ID,
        product: { name: 'mcp-engines', version: packageVersion(), server: 'lispex mcp serve' },
        profile: profileIdentity(),
        ...routeObservation(outcome.observation as Observation, outcome.hostMs),
        forbidden_fallback_counts: { backend: 0, route: 0, profile: 0, retry: 0 },
        source_retained: false,
        semantic_equivalence_proved: false,
        vouch_authority: false,
      };
    },
  });
}

function context(protocolVersion: string): ToolContext {
  return {
    signal: new AbortController().signal,
    requestId: 1,
    protocolVersion,
    progress: () => {},
    log: silentLogger,
    notify: () => {},
  };
}

test('lispex_eval answers are byte for byte those of the schema-checked path, and inside the schema', async () => {
  const host = new InProcessHost();
  const raw = createLispexTools({ host, products: {} });
  const checked = checkedPathRegistry(host);
  for (const protocolVersion of ['2025-11-25', '2025-03-26']) {
    for (const source of PROGRAMS) {
      for (const input of [undefined, '(a "b" 3)']) {
        const args = input === undefined ? { source } : { source, input };
        const got = await raw.call('lispex_eval', args, context(protocolVersion));
        const want = await checked.call('lispex_eval', args, context(protocolVersion));
        assert.equal(got.isError, false, source);
        assert.equal(JSON.stringify(got), JSON.stringify(want), `${protocolVersion}: ${source}`);
        const text = (got.content[0] as { text: string }).text;
        assert.equal(protocolVersion >= '2025-06-18', got.structuredContent !== undefined);
        if (got.structuredContent !== undefined) assert.equal(JSON.stringify(got.structuredContent), text);
        const parsed = EvalResultOutput.safeParse(JSON.parse(text));
        assert.ok(parsed.success, `outside the output schema: ${source}`);
      }
    }
  }
});
