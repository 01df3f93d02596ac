// The project manifest `ultimate-tool.json`: what to build, which artifacts and symbol files the
// build leaves, and the tests. Validated with zod; `manifest.schema.json` (shipped beside this
// file) is generated from the same schema by `manifest-schema-build.ts`.
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import { z } from 'zod';
import { AddressSchema } from './address.js';

export const MANIFEST_FILE = 'ultimate-tool.json';
export const MANIFEST_SCHEMA_VERSION = 1;

/** A path inside the project: relative, no `..`, no absolute paths. */
const ProjectPath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).split(/[\\/]/).includes('..'), {
    message: 'expected a path relative to the project root without ".."',
  });

export const SymbolFormatSchema = z.enum(['acme-vicelabels', '64tass-vice-labels', 'ld65-labels', 'ld65-map', 'ld65-dbg']);
export type SymbolFormat = z.infer<typeof SymbolFormatSchema>;

export const SymbolFileSchema = z.strictObject({
  path: ProjectPath,
  format: SymbolFormatSchema.describe(
    'acme --vicelabels, 64tass --vice-labels, ld65 -Ln, an ld65 -m map file, or an ld65 --dbgfile debug info file (source lines for timelines)',
  ),
});

export const ArtifactSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a short lower-case name'),
  path: ProjectPath.describe('the PRG the build leaves (load address $0801 with a BASIC SYS stub)'),
  symbols: z.array(SymbolFileSchema).max(8).default([]),
});

const HexBytes = z
  .string()
  .regex(/^([0-9a-fA-F]{2})+$/, 'expected bytes as an even number of hex digits, e.g. "37" or "0a0b"')
  .max(512);

export const MemoryExpectationSchema = z.strictObject({
  address: AddressSchema,
  bytes: HexBytes.describe('expected bytes at the address, as hex'),
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
    .max(0x7f)
    .describe('the progress marker ($01-$7F) the program writes to $D7FF through the harness checkpoint routine'),
  ranges: z.array(CheckpointRangeSchema).min(1).max(CHECKPOINT_LIMITS.rangesPerPoint),
});
export type CheckpointPointSpec = z.infer<typeof CheckpointPointSchema>;

export const TestSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'expected a short lower-case test name'),
  description: z.string().max(500).default(''),
  artifact: z.string().describe('name of an entry in "artifacts"'),
  start: z.literal('run').default('run').describe('how the program starts: reset, load, BASIC RUN'),
  observe: z
    .enum(['debug_register', 'screen'])
    .describe('debug_register: the run ends on a result written to $D7FF; screen: it ends when screen_match holds or the budget ends'),
  expect: z.strictObject({
    debug_register: z.number().int().min(0x80).max(0xbf).default(0x80).describe('the result byte that means pass'),
    screen_match: ScreenMatchSpecSchema.optional(),
    memory: z.array(MemoryExpectationSchema).max(32).default([]),
  }),
  budget: z.strictObject({
    time_ms: z.number().int().min(100).max(600_000).describe('wall-clock budget of one run on the target'),
    cycles: z.number().int().min(1).optional().describe('cycle budget, recorded; judged where the target can count cycles'),
  }),
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
    build: z.strictObject({
      command: z.array(z.string().min(1)).min(1).describe('argv, run in a clean copy of the project'),
      timeout_ms: z.number().int().min(1000).max(3_600_000).default(120_000),
    }),
    artifacts: z.array(ArtifactSchema).min(1).max(64),
    ultimate_reu_image: ProjectPath.nullable().default(null),
    tests: z.array(TestSchema).min(1).max(256),
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
    const names = new Set(m.artifacts.map((a) => a.name));
    if (names.size !== m.artifacts.length) ctx.addIssue({ code: 'custom', path: ['artifacts'], message: 'artifact names must be unique' });
    const testNames = new Set<string>();
    m.tests.forEach((t, i) => {
      if (!names.has(t.artifact))
        ctx.addIssue({ code: 'custom', path: ['tests', i, 'artifact'], message: `no artifact named ${JSON.stringify(t.artifact)}` });
      if (testNames.has(t.name)) ctx.addIssue({ code: 'custom', path: ['tests', i, 'name'], message: `duplicate test ${t.name}` });
      testNames.add(t.name);
      checkCheckpoints(t, ['tests', i], ctx);
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
  if (hit && hit.text === text) return structuredClone(hit.manifest);
  const manifest = parseManifestText(file, text);
  cache.set(file, { text, manifest });
  return structuredClone(manifest);
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
