// The crash report from a crash hand-off: site, registers, stack candidates verified against a
// real acme-assembled program, and refusal of altered or malformed evidence.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  buildCrashReport,
  CrashAnalysisError,
  type CrashReportInput,
  type Resolution,
} from '../../../../services/ultimate-tool/analysis/crash-report.js';

const dir = mkdtempSync(join(tmpdir(), 'crash-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let prg: Buffer;
const labels = new Map<string, number>();

before(() => {
  const src = join(dir, 'crash.asm');
  writeFileSync(
    src,
    [
      '* = $0801',
      '        !word end, 10',
      '        !byte $9e',
      '        !text "2061"',
      '        !byte 0',
      'end     !word 0',
      'start   jsr test_main',
      '-       jmp -',
      'test_main',
      '        lda #$2a',
      '        jsr broken',
      '        rts',
      'broken  pha',
      '        brk',
      '        !byte 0',
      '',
    ].join('\n'),
  );
  execFileSync('acme', ['-f', 'cbm', '-o', join(dir, 'crash.prg'), '--vicelabels', join(dir, 'crash.labels'), src]);
  prg = readFileSync(join(dir, 'crash.prg'));
  for (const line of readFileSync(join(dir, 'crash.labels'), 'utf8').split('\n')) {
    const m = /^al C:([0-9a-f]+) \.(\w+)/i.exec(line);
    if (m?.[1] && m[2]) labels.set(m[2], Number.parseInt(m[1], 16));
  }
});

/** A nearest-label resolver over the program's own labels (the service injects the real one). */
function resolve(address: number): Resolution {
  let best: [string, number] | undefined;
  for (const [name, at] of labels) if (at <= address && (!best || at > best[1])) best = [name, at];
  return best
    ? { resolver_schema_version: 2, result: 'resolved', symbol: best[0], offset: address - best[1] }
    : { resolver_schema_version: 2, result: 'unmapped' };
}

function at(name: string): number {
  const v = labels.get(name);
  assert.ok(v !== undefined, `label ${name}`);
  return v;
}

/** The evidence the harness would hand over when `broken` hits its BRK (SP = $F0 after the PHA). */
function crashedRun(mutate?: (files: Map<string, Buffer>) => void): CrashReportInput {
  const brk = at('broken') + 1;
  const pushed = brk + 2;
  const sp = 0xf0;
  const context = Buffer.from([0x43, 0x52, 1, 0x2a, 0x22, 0x33, 0x30, sp, pushed & 0xff, pushed >> 8, 0, 0, 0, 0, 0, 0]);
  // Stack $01F1..$01FF: the PHA'd A, then JSR broken's return − 1, then JSR test_main's, then BASIC's.
  const jsrBrokenReturnMinus1 = at('test_main') + 2 + 2; // lda #$2a (2 bytes), jsr at +2, its last byte at +4
  const jsrMainReturnMinus1 = at('start') + 2;
  const stack = Buffer.alloc(0xff - sp);
  stack[0] = 0x2a;
  stack.writeUInt16LE(jsrBrokenReturnMinus1, 1);
  stack.writeUInt16LE(jsrMainReturnMinus1, 3);
  stack.writeUInt16LE(0xa7e9, 5); // a BASIC ROM return: not in the program, not a candidate
  const files = new Map<string, Buffer>([
    ['crash-context.bin', context],
    ['crash-stack.bin', stack],
    ['crash-zero-page.bin', Buffer.alloc(256, 7)],
    ['crash-globals.json', Buffer.from('[{"name":"COUNTER","address":251,"bytes":"2a"}]')],
  ]);
  const evidence = [...files].map(([name, bytes]) => ({
    name,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }));
  mutate?.(files);
  return {
    run: {
      run_id: '6f9c1e52-8d2b-4c7a-9f3e-2b1a0c9d8e7f',
      status: 'crashed',
      crash_state: {
        handoff: 'harness-crash-area-v1',
        evidence: {
          context: 'crash-context.bin',
          stack: 'crash-stack.bin',
          zero_page: 'crash-zero-page.bin',
          globals: 'crash-globals.json',
        },
      },
      evidence,
    },
    readEvidence: async (name) => {
      const b = files.get(name);
      if (!b) throw new Error('ENOENT');
      return b;
    },
    programPrg: prg,
    resolve,
  };
}

test('the report names the function that crashed and the verified call chain', async () => {
  const report = await buildCrashReport(crashedRun());
  assert.equal(report.crash_analysis_schema_version, 2);
  assert.equal(report.kind, 'brk');
  const site = report.site as { address: number; exact: boolean; opcode_in_program: string; resolution: Resolution };
  assert.equal(site.address, at('broken') + 1);
  assert.equal(site.exact, true);
  assert.equal(site.opcode_in_program, '$00', 'the site holds the BRK opcode');
  assert.deepEqual(site.resolution, { resolver_schema_version: 2, result: 'resolved', symbol: 'broken', offset: 1 });
  const candidates = (report.stack as { candidate_return_addresses: Array<{ resolution: Resolution; called_resolution: Resolution }> })
    .candidate_return_addresses;
  assert.deepEqual(
    candidates.map((c) => [c.resolution.symbol, c.called_resolution.symbol]),
    [
      ['test_main', 'broken'],
      ['start', 'test_main'],
    ],
  );
  assert.deepEqual((report.registers as Record<string, unknown>).a_hex, '$2A');
  assert.deepEqual(report.globals, [{ name: 'COUNTER', address: 251, bytes: '2a' }]);
});

test('altered, missing or malformed hand-off evidence is crash_analysis_failed', async () => {
  const cases: Array<[(files: Map<string, Buffer>) => void, RegExp]> = [
    [(f) => f.get('crash-stack.bin')?.writeUInt8(0x99, 0), /crash-stack\.bin no longer matches its registered SHA-256/],
    [(f) => f.delete('crash-zero-page.bin'), /crash-zero-page\.bin is registered but cannot be read/],
  ];
  for (const [mutate, message] of cases) {
    await assert.rejects(
      buildCrashReport(crashedRun(mutate)),
      (e: unknown) => e instanceof CrashAnalysisError && e.code === 'crash_analysis_failed' && message.test(e.message),
    );
  }
  const malformed = crashedRun();
  const ctx = Buffer.from('XX'.padEnd(16, '\0'));
  const sha = createHash('sha256').update(ctx).digest('hex');
  const run = {
    ...malformed.run,
    evidence: malformed.run.evidence.map((e) => (e.name === 'crash-context.bin' ? { ...e, size: 16, sha256: sha } : e)),
  };
  await assert.rejects(
    buildCrashReport({ ...malformed, run, readEvidence: async (n) => (n === 'crash-context.bin' ? ctx : malformed.readEvidence(n)) }),
    (e: unknown) => e instanceof CrashAnalysisError && e.reason === 'malformed-context' && /"CR" marker/.test(e.message),
  );
  await assert.rejects(
    buildCrashReport({ ...malformed, run: { ...malformed.run, status: 'passed' } }),
    (e: unknown) => e instanceof CrashAnalysisError && e.reason === 'not-crashed',
  );
  await assert.rejects(
    buildCrashReport({ ...malformed, run: { ...malformed.run, crash_state: null } }),
    (e: unknown) => e instanceof CrashAnalysisError && e.reason === 'no-crash-context',
  );
});

test('a crash the DMA-installed hook caught (PC = the BRK itself) is reported as such, not as seen in the bus trace', async () => {
  const input = crashedRun((files) => {
    const ctx = files.get('crash-context.bin')!;
    const brk = at('broken') + 1;
    ctx[8] = brk & 0xff; // the hook records the BRK's own address, as the bus trace does
    ctx[9] = brk >> 8;
  });
  // The context bytes changed after hashing: rehash as the run record would hold them.
  const files = new Map<string, Buffer>();
  for (const e of input.run.evidence as ReadonlyArray<{ name: string }>) files.set(e.name, await input.readEvidence(e.name));
  (input.run as { evidence: unknown }).evidence = [...files].map(([name, bytes]) => ({
    name,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }));
  (input.run.crash_state as { handoff: string }).handoff = 'dma-crash-hook-v1';
  const report = await buildCrashReport(input);
  const site = report.site as { address: number; exact: boolean; note: string; opcode_in_program: string };
  assert.equal(site.address, at('broken') + 1);
  assert.equal(site.exact, true);
  assert.equal(site.opcode_in_program, '$00');
  assert.match(site.note, /crash hook installed by DMA/);
  assert.doesNotMatch(site.note, /bus trace/);
  (input.run.crash_state as { handoff: string }).handoff = 'hook-v0';
  await assert.rejects(buildCrashReport(input), /expected harness-crash-area-v1, bus-trace-v1 or dma-crash-hook-v1/);
});
