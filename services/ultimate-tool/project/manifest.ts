// The project manifest `ultimate-tool.json`: what to build, which artifacts and symbol files the
// build leaves, and the tests. Validated with zod; `manifest.schema.json` (shipped beside this
// file) is generated from the same schema by `manifest-schema-build.ts`.
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import { z } from 'zod';
import { AddressSchema, addressHex } from '../api/address.js';
import { escapeMessage, projectPathEscape } from './project-paths.js';

export const MANIFEST_FILE = 'ultimate-tool.json';
export const MANIFEST_SCHEMA_VERSION = 1;
/** A project's artifacts and tests, at most (VICE's testbench as one project is 743 of each). */
export const MANIFEST_LIMITS = { artifacts: 1024, tests: 1024 } as const;

/** A path inside the project: relative, no `..`, no absolute paths. */
const ProjectPath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).split(/[\\/]/).includes('..'), {
    message: 'expected a path relative to the project root without ".."',
  });

export const SymbolFormatSchema = z.enum(['acme-vicelabels', '64tass-vice-labels', '64tass-map', 'ld65-labels', 'ld65-map', 'ld65-dbg']);
export type SymbolFormat = z.infer<typeof SymbolFormatSchema>;

export const SymbolFileSchema = z.strictObject({
  path: ProjectPath,
  format: SymbolFormatSchema.describe(
    'acme --vicelabels, 64tass --vice-labels, a 64tass --map memory map (the ranges the program occupies), ld65 -Ln, an ld65 -m map file, or an ld65 --dbgfile debug info file (source lines for timelines and crash reports)',
  ),
});

export const ArtifactSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a short lower-case name'),
  path: ProjectPath.describe(
    'the PRG the build leaves, or the prebuilt PRG in the project (any load address: a BASIC stub at $0801 starts with RUN, any other with start.sys)',
  ),
  symbols: z.array(SymbolFileSchema).max(8).default([]),
  prebuilt: z
    .boolean()
    .default(false)
    .describe('true: the PRG (and its symbol files) are in the project as they are, not made by the build; taken as they are'),
});

/** The longest memory expectation, in bytes (a whole 1 KiB screen or colour RAM fits four times). */
export const MEMORY_EXPECTATION_MAX_BYTES = 4096;

const HexBytes = z
  .string()
  .regex(/^([0-9a-fA-F]{2})+$/, 'expected bytes as an even number of hex digits, e.g. "37" or "0a0b"')
  .max(
    MEMORY_EXPECTATION_MAX_BYTES * 2,
    `expected at most ${MEMORY_EXPECTATION_MAX_BYTES} bytes (${MEMORY_EXPECTATION_MAX_BYTES * 2} hex digits)`,
  );

export const MemoryExpectationSchema = z.strictObject({
  address: AddressSchema,
  bytes: HexBytes.describe('expected bytes at the address, as hex (up to 4096 bytes)'),
  mask: HexBytes.optional().describe(
    'bits compared, as hex of the same length as bytes (e.g. "0f" per cell of colour RAM, whose upper 4 bits are not memory); without it every bit is compared',
  ),
});

/** A byte value 0-255 (a $D7FF value, a fill byte). */
const ByteValue = z.number().int().min(0).max(255);

/** The $D7FF values that end the run as passed or failed (the program's own protocol). */
export const VerdictSchema = z.strictObject({
  pass: z.array(ByteValue).min(1).max(256).describe('$D7FF values (0-255) that end the run as passed, e.g. [0]'),
  fail: z.array(ByteValue).max(256).default([]).describe('$D7FF values (0-255) that end the run as failed, e.g. [255]'),
});

/** One write of the expected $D7FF sequence; cycles from the previous write's cycle to this one's. */
export const DebugRegisterWriteExpectationSchema = z.strictObject({
  value: ByteValue.describe('the value written to $D7FF'),
  cycles_after_previous: z
    .union([
      z.number().int().min(1),
      z.strictObject({ min: z.number().int().min(0), max: z.number().int().min(0) }).refine((r) => r.min <= r.max, {
        message: 'expected min <= max',
      }),
    ])
    .optional()
    .describe('CPU cycles from the previous write to this one (write cycle to write cycle): exactly n, or {min, max}'),
});

/** Memory filled before the program starts (RAM survives the reset). */
export const MemoryFillSchema = z.strictObject({
  address: AddressSchema,
  length: z.number().int().min(1).max(0x10000).describe('bytes to fill; address + length stays within $0000-$FFFF'),
  byte: ByteValue.describe('the fill byte'),
});

export const ScreenMatchSpecSchema = z.strictObject({
  text: z.string().min(1).max(1000).describe('text expected somewhere in screen RAM (40x25), compared as ASCII'),
  row: z.number().int().min(0).max(24).optional().describe('only this row (0-based)'),
});

/**
 * Memory checkpoints (docs/ultimate/CHECKPOINT_COMPARISON.md): the bounded supported shapes. A
 * manifest outside them is refused when it is loaded, before any run starts.
 */
export const CHECKPOINT_LIMITS = { points: 16, rangesPerPoint: 8, rangeBytes: 4096, pointBytes: 16 * 1024 } as const;

const CheckpointName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a short lower-case name');

export const CheckpointRangeSchema = z.strictObject({
  name: CheckpointName,
  address: AddressSchema,
  length: z.number().int().min(1).max(CHECKPOINT_LIMITS.rangeBytes).describe('bytes to read, 1-4096, within $0000-$FFFF'),
});

export const CheckpointPointSchema = z.strictObject({
  name: CheckpointName,
  marker: z
    .number()
    .int()
    .min(1)
    .max(0xff)
    .describe(
      'the marker the program writes to $D7FF: $01-$7F through the harness checkpoint routine (acknowledged), or, with verdict, any value outside the verdict sets (captured at the exact write)',
    ),
  ranges: z.array(CheckpointRangeSchema).min(1).max(CHECKPOINT_LIMITS.rangesPerPoint),
});
export type CheckpointPointSpec = z.infer<typeof CheckpointPointSchema>;

/**
 * The machine a test runs on (all optional; absent = the target's default C64: old 6526 CIAs, PAL,
 * the old VIC-II, no REU). The vice target passes them as x64sc flags, the virtual Ultimate takes
 * them per run, real hardware applies what its configuration offers and refuses the rest before
 * any effect (targets/machine-options.ts, docs/ultimate/SERVICE.md "Machine options").
 */
export const REU_SIZES_KB = [128, 256, 512, 1024, 2048, 4096, 8192, 16384] as const;
export const MachineSchema = z
  .strictObject({
    cia_model: z
      .enum(['6526', '6526A', '6526-4485'])
      .optional()
      .describe('both CIAs: the old 6526, the new 6526A, or an old 6526 of the batch dated 4485 (VICE testbench "CIA timestamp 4485")'),
    video: z.enum(['pal', 'ntsc', 'ntsc-old']).optional().describe('PAL 6569, NTSC 6567R8, or the first NTSC chip 6567R56A'),
    vic_revision: z.enum(['old', 'new']).optional().describe('old (6569/6567) or new (8565/8562, as in a C64C) VIC-II'),
    reu_kb: z
      .number()
      .int()
      .refine((n) => n === 0 || (REU_SIZES_KB as readonly number[]).includes(n), {
        message: `expected 0 (no REU) or a REU size in KiB: ${REU_SIZES_KB.join(', ')}`,
      })
      .optional()
      .describe('a REU (1700/1764/1750 family) of this many KiB at $DF00; 0 = none'),
  })
  .refine((m) => !(m.video === 'ntsc-old' && m.vic_revision === 'new'), {
    message: 'vic_revision "new" with video "ntsc-old": there is no new revision of the 6567R56A',
    path: ['vic_revision'],
  });
export type MachineSpec = z.infer<typeof MachineSchema>;

/**
 * How the program starts (docs/ultimate/SERVICE.md, "Where a program starts"): "run" resets, loads
 * and types RUN (any BASIC, any SYS expression); { sys } resets, loads and types SYS address, for a
 * PRG that does not load at $0801. Either way the run's cycle 0 is the first opcode fetch inside the
 * PRG's load range after that.
 */
export const StartSchema = z
  .union([z.literal('run'), z.strictObject({ sys: AddressSchema.describe('the address typed after SYS (decimal, $ABCD or 0xABCD)') })])
  .default('run')
  .describe('"run": reset, load, RUN; { "sys": address }: reset, load, SYS address (a PRG not loading at $0801)');

/** One range of the program's code, inclusive. */
export const CodeRangeSchema = z
  .strictObject({ start: AddressSchema, end: AddressSchema })
  .refine((r) => r.start <= r.end, { message: 'expected start <= end' });

/**
 * What is a crash (issue 31): a JAM, a BRK that reaches the KERNAL's own handling, and — only when
 * declared — an opcode fetch outside the program's code. The same on every target.
 */
export const CrashOptionsSchema = z
  .strictObject({
    jam: z.boolean().default(true).describe('a JAM opcode halting the CPU is a crash (default true)'),
    brk: z
      .enum(['unhandled', 'any', 'never'])
      .default('unhandled')
      .describe(
        '"unhandled" (default): a BRK is a crash when it reaches the KERNAL\'s own BRK handling ($0316/$0317 still points into the KERNAL, or with the KERNAL banked out the vector at $FFFE/$FFFF was not set by the program); "any": every BRK; "never": no BRK',
      ),
    outside_code: z
      .strictObject({
        ranges: z
          .array(CodeRangeSchema)
          .min(1)
          .max(16)
          .describe("the program's code; an opcode fetch outside them (the ROMs, the zero and stack pages excepted) is a crash"),
      })
      .optional()
      .describe('off unless given'),
  })
  .default({ jam: true, brk: 'unhandled' })
  .describe('what ends a run as crashed');
export type CrashOptions = z.infer<typeof CrashOptionsSchema>;

export const TestSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a short lower-case test name'),
  description: z.string().max(500).default(''),
  artifact: z.string().describe('name of an entry in "artifacts"'),
  start: StartSchema,
  observe: z
    .enum(['debug_register', 'screen'])
    .describe('debug_register: the run ends on a result written to $D7FF; screen: it ends when screen_match holds or the budget ends'),
  expect: z.strictObject({
    debug_register: ByteValue.optional().describe(
      'the $D7FF value that ends a passing run (0-255); default $80 with the harness convention, any pass value with verdict',
    ),
    debug_register_writes: z
      .array(DebugRegisterWriteExpectationSchema)
      .min(1)
      .max(256)
      .optional()
      .describe('the exact ordered sequence of $D7FF writes of the run, optionally with the CPU cycles between them'),
    screen_match: ScreenMatchSpecSchema.optional(),
    memory: z.array(MemoryExpectationSchema).max(32).default([]),
    timeout: z
      .literal(true)
      .optional()
      .describe(
        "the program must NOT end the run: it passes when it runs out its budget (budget.cycles, else budget.time_ms) without writing a value that ends the run, or halts in a JAM that crash.jam says is no crash (VICE's testbench rows marked expect:timeout)",
      ),
  }),
  verdict: VerdictSchema.optional().describe(
    'the $D7FF values that end the run as passed or failed; without it the harness convention ($80 pass, $81-$BF fail, $C0 crash)',
  ),
  prepare: z
    .strictObject({ fill: z.array(MemoryFillSchema).min(1).max(16).describe('memory filled before the program starts') })
    .optional(),
  budget: z.strictObject({
    time_ms: z.number().int().min(100).max(600_000).describe('wall-clock budget of one run on the target'),
    cycles: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("the most CPU cycles from the program's start to the write that ends the run; once passed the run is stopped and fails"),
  }),
  machine: MachineSchema.optional().describe('the C64 this test needs (CIA model, video, VIC-II revision, REU); absent: the default C64'),
  crash: CrashOptionsSchema,
  crash_globals: z
    .array(z.strictObject({ name: z.string().min(1).max(64), address: AddressSchema, length: z.number().int().min(1).max(256) }))
    .max(16)
    .default([]),
  memory_checkpoint_capture: z.boolean().default(false),
  checkpoints: z
    .array(CheckpointPointSchema)
    .max(CHECKPOINT_LIMITS.points)
    .default([])
    .describe('named points (in the order the program reaches them) and the memory ranges read at each; needs memory_checkpoint_capture'),
});

/**
 * A native program for the Ultimate 64 Elite II's RISC-V core (the trusted-native flow,
 * docs/ultimate/NATIVE.md): either sources built with the riscv toolchain (freestanding rv32i,
 * linked at 0x03000000) or a prebuilt .elf / .ue2 inside the project. Paths stay in the project.
 */
export const NativeProgramSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a short lower-case name'),
    description: z.string().max(500).default(''),
    sources: z
      .array(ProjectPath.refine((p) => /\.(c|S|s|h)$/.test(p), { message: 'expected a .c, .S, .s or .h file' }))
      .min(1)
      .max(64)
      .optional()
      .describe('C/assembly sources (and the headers they include, same folder) built with riscv64-unknown-elf-gcc'),
    flags: z
      .array(z.string().regex(/^-(O[0-3s]?|D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_]*)?|W[a-z-]+|g)$/, 'expected -O…, -DNAME[=V], -W… or -g'))
      .max(32)
      .default([])
      .describe('extra compiler flags (only optimisation, defines, warnings, -g)'),
    prebuilt: ProjectPath.refine((p) => /\.(elf|ue2)$/i.test(p), { message: 'expected a .elf or .ue2 file' })
      .optional()
      .describe('a linked RV32 ELF or a ready .UE2 update file inside the project, instead of sources'),
    build_timeout_ms: z.number().int().min(1000).max(600_000).default(60_000),
  })
  .refine((p) => (p.sources === undefined) !== (p.prebuilt === undefined), {
    message: 'a native program names either "sources" or "prebuilt" (exactly one)',
  });
export type NativeProgramSpec = z.infer<typeof NativeProgramSchema>;

/** The run-protocol rules of one test: verdict sets disjoint, fills inside memory, masks as long as bytes. */
function checkProtocol(t: z.infer<typeof TestSchema>, path: Array<string | number>, ctx: z.RefinementCtx): void {
  const issue = (p: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path: [...path, ...p], message });
  if (t.verdict) {
    const pass = new Set(t.verdict.pass);
    const both = [...new Set(t.verdict.fail.filter((v) => pass.has(v)))];
    if (both.length)
      issue(
        ['verdict'],
        `the values ${both.map((v) => `$${v.toString(16).toUpperCase().padStart(2, '0')}`).join(', ')} are in both pass and fail; the two sets must not overlap`,
      );
    if (t.observe !== 'debug_register') issue(['verdict'], 'verdict needs observe "debug_register" (the values are written to $D7FF)');
    if (t.expect.debug_register !== undefined && !pass.has(t.expect.debug_register))
      issue(['expect', 'debug_register'], `expected one of the verdict's pass values (${[...pass].join(', ')})`);
  } else if (t.expect.debug_register !== undefined && (t.expect.debug_register < 0x80 || t.expect.debug_register > 0xbf))
    issue(
      ['expect', 'debug_register'],
      'without verdict the harness convention applies: expected a pass byte $80-$BF (128-191); declare verdict for other values',
    );
  if (t.expect.debug_register_writes && t.observe !== 'debug_register')
    issue(['expect', 'debug_register_writes'], 'debug_register_writes needs observe "debug_register"');
  if (t.expect.timeout && t.observe !== 'debug_register')
    issue(['expect', 'timeout'], 'expect.timeout needs observe "debug_register" (a screen run always ends at its budget)');
  if (t.expect.timeout && t.expect.debug_register !== undefined)
    issue(['expect', 'timeout'], 'expect.timeout and expect.debug_register contradict each other: the run must not end with a value');
  t.prepare?.fill.forEach((f, j) => {
    if (f.address + f.length > 0x10000)
      issue(
        ['prepare', 'fill', j, 'length'],
        `the fill from ${addressHex(f.address)} of ${f.length} bytes runs past $FFFF; a fill stays inside $0000-$FFFF`,
      );
  });
  t.expect.memory.forEach((m, j) => {
    if (m.mask !== undefined && m.mask.length !== m.bytes.length)
      issue(
        ['expect', 'memory', j, 'mask'],
        `expected a mask of the same length as bytes (${m.bytes.length / 2} bytes), got ${m.mask.length / 2}`,
      );
    if (m.address + m.bytes.length / 2 > 0x10000) issue(['expect', 'memory', j, 'bytes'], 'the expected bytes run past $FFFF');
  });
}

/** The pass value of a test: its expect.debug_register, or the harness's $80 without verdict (null: any pass value). */
export function expectedPassValue(t: TestSpec): number | null {
  if (t.expect.debug_register !== undefined) return t.expect.debug_register;
  return t.verdict ? null : 0x80;
}

/** The checkpoint rules a single test must keep (added to the manifest's issues). */
function checkCheckpoints(t: z.infer<typeof TestSchema>, path: Array<string | number>, ctx: z.RefinementCtx): void {
  if (t.checkpoints.length === 0) return;
  const issue = (p: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path: [...path, ...p], message });
  if (!t.memory_checkpoint_capture) issue(['checkpoints'], 'checkpoints need memory_checkpoint_capture: true');
  if (t.observe !== 'debug_register')
    issue(['checkpoints'], 'checkpoints need observe "debug_register" (the points are progress markers written to $D7FF)');
  const names = new Set<string>();
  const markers = new Set<number>();
  t.checkpoints.forEach((p, i) => {
    if (names.has(p.name)) issue(['checkpoints', i, 'name'], `duplicate checkpoint ${p.name}`);
    if (markers.has(p.marker)) issue(['checkpoints', i, 'marker'], `marker ${p.marker} is used by another checkpoint; markers are unique`);
    if (!t.verdict && p.marker > 0x7f)
      issue(['checkpoints', i, 'marker'], 'without verdict the harness convention applies: expected a progress marker $01-$7F (1-127)');
    if (t.verdict && (t.verdict.pass.includes(p.marker) || t.verdict.fail.includes(p.marker)))
      issue(['checkpoints', i, 'marker'], `marker ${p.marker} is a verdict value; a marker must not end the run`);
    names.add(p.name);
    markers.add(p.marker);
    const rangeNames = new Set<string>();
    let bytes = 0;
    p.ranges.forEach((r, j) => {
      if (rangeNames.has(r.name)) issue(['checkpoints', i, 'ranges', j, 'name'], `duplicate range ${r.name} in checkpoint ${p.name}`);
      rangeNames.add(r.name);
      if (r.address + r.length > 0x10000)
        issue(['checkpoints', i, 'ranges', j, 'length'], `range ${r.name} runs past $FFFF; a range stays inside $0000-$FFFF`);
      bytes += r.length;
    });
    if (bytes > CHECKPOINT_LIMITS.pointBytes)
      issue(['checkpoints', i, 'ranges'], `checkpoint ${p.name} reads ${bytes} bytes; at most ${CHECKPOINT_LIMITS.pointBytes} per point`);
  });
}

export const ManifestSchema = z
  .strictObject({
    $schema: z.string().optional(),
    manifest_schema_version: z.literal(MANIFEST_SCHEMA_VERSION),
    name: z.string().min(1).max(100),
    build: z
      .strictObject({
        command: z.array(z.string().min(1)).min(1).describe('argv, run in a clean copy of the project'),
        timeout_ms: z.number().int().min(1000).max(3_600_000).default(120_000),
      })
      .nullable()
      .describe('the build; null: nothing to build (every artifact is prebuilt)'),
    artifacts: z.array(ArtifactSchema).min(1).max(MANIFEST_LIMITS.artifacts),
    ultimate_reu_image: ProjectPath.nullable().default(null),
    tests: z.array(TestSchema).min(1).max(MANIFEST_LIMITS.tests),
    native_programs: z
      .array(NativeProgramSchema)
      .max(32)
      .default([])
      .describe('native programs for an Ultimate 64 Elite II (create_native_preparation names one)'),
  })
  .superRefine((m, ctx) => {
    const nativeNames = new Set(m.native_programs.map((p) => p.name));
    if (nativeNames.size !== m.native_programs.length)
      ctx.addIssue({ code: 'custom', path: ['native_programs'], message: 'native program names must be unique' });
    if (m.build === null)
      m.artifacts.forEach((a, i) => {
        if (!a.prebuilt)
          ctx.addIssue({
            code: 'custom',
            path: ['artifacts', i, 'prebuilt'],
            message: 'build is null (nothing to build): every artifact must be prebuilt: true, in the project as it is',
          });
      });
    const names = new Set(m.artifacts.map((a) => a.name));
    if (names.size !== m.artifacts.length) ctx.addIssue({ code: 'custom', path: ['artifacts'], message: 'artifact names must be unique' });
    const testNames = new Set<string>();
    m.tests.forEach((t, i) => {
      if (!names.has(t.artifact))
        ctx.addIssue({ code: 'custom', path: ['tests', i, 'artifact'], message: `no artifact named ${JSON.stringify(t.artifact)}` });
      if (testNames.has(t.name)) ctx.addIssue({ code: 'custom', path: ['tests', i, 'name'], message: `duplicate test ${t.name}` });
      testNames.add(t.name);
      checkCheckpoints(t, ['tests', i], ctx);
      checkProtocol(t, ['tests', i], ctx);
      if (t.observe === 'screen' && !t.expect.screen_match)
        ctx.addIssue({
          code: 'custom',
          path: ['tests', i, 'expect', 'screen_match'],
          message: 'observe "screen" needs expect.screen_match',
        });
    });
  });

export type Manifest = z.infer<typeof ManifestSchema>;
export type TestSpec = z.infer<typeof TestSchema>;
export type CheckpointRangeSpec = z.infer<typeof CheckpointRangeSchema>;
export type ArtifactSpec = z.infer<typeof ArtifactSchema>;

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

/** Formats zod issues as "path: message" lines. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

const cache = new Map<string, { text: string; manifest: Manifest }>();

/** Reads and validates the manifest; an unchanged file is not validated again. */
export async function loadManifest(projectRoot: string): Promise<Manifest> {
  const file = join(projectRoot, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ManifestError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const hit = cache.get(file);
  const manifest = hit && hit.text === text ? hit.manifest : parseManifestText(file, text);
  cache.set(file, { text, manifest });
  // Not cached: a symlink can appear in the project while the manifest text stays the same.
  await checkProjectPaths(projectRoot, file, manifest);
  return structuredClone(manifest);
}

/** Every path the manifest names, with the field that names it. */
function manifestPaths(m: Manifest): Array<[field: string, path: string]> {
  const out: Array<[string, string]> = [];
  m.artifacts.forEach((a, i) => {
    out.push([`artifacts.${i}.path`, a.path]);
    a.symbols.forEach((s, j) => {
      out.push([`artifacts.${i}.symbols.${j}.path`, s.path]);
    });
  });
  if (m.ultimate_reu_image !== null) out.push(['ultimate_reu_image', m.ultimate_reu_image]);
  m.native_programs.forEach((p, i) => {
    p.sources?.forEach((s, j) => {
      out.push([`native_programs.${i}.sources.${j}`, s]);
    });
    if (p.prebuilt !== undefined) out.push([`native_programs.${i}.prebuilt`, p.prebuilt]);
  });
  return out;
}

/**
 * The manifest's paths resolved on disk (realpath, symlinks included): one that leads out of the
 * project is a manifest error naming the field, the path and where it leads — before anything is
 * built, read, stored or served (docs/ultimate/SERVICE.md, "The project").
 */
async function checkProjectPaths(projectRoot: string, file: string, m: Manifest): Promise<void> {
  let root: string;
  try {
    root = await realpath(projectRoot);
  } catch (e) {
    throw new ManifestError(`cannot resolve the project ${projectRoot}: ${(e as Error).message}`);
  }
  const fileLeads = await projectPathEscape(root, MANIFEST_FILE);
  if (fileLeads !== null) throw new ManifestError(`${file}: ${escapeMessage(MANIFEST_FILE, fileLeads, root)}`);
  const issues: string[] = [];
  for (const [field, path] of manifestPaths(m)) {
    const leads = await projectPathEscape(root, path);
    if (leads !== null) issues.push(`${field}: ${escapeMessage(path, leads, root)}`);
  }
  if (issues.length) throw new ManifestError(`${file} is not a valid manifest: ${issues.join('; ')}`);
}

function parseManifestText(file: string, text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ManifestError(`${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new ManifestError(`${file} is not a valid manifest: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** The JSON Schema of the manifest (input form: what a person writes). */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ManifestSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: 'https://mcp-engines.invalid/ultimate-tool/manifest.schema.json', title: 'ultimate-tool.json' };
}
