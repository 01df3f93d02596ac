// create_native_preparation: no hardware access. Builds the manifest's native program with the
// riscv toolchain (time-limited) or takes its prebuilt .elf / .ue2 from the project, packs the
// update file, checks it with the strict reader, and stores the bytes content-addressed with
// their SHA-256 (durably, before the record is committed).
import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { checkFileSize, readFileCapped, sha256Hex } from '../../../../common/index.js';
import { readElf32 } from '../../../../engines/ultimate/index.js';
import { RISCV_FLAGS, buildRiscvProgram } from '../../../../engines/ultimate/index.js';
import { UE2_MAX_FILE_BYTES, packUe2FromElf, parseUe2 } from '../../../../engines/ultimate/index.js';
import type { Manifest, NativeProgramSpec } from '../../project/manifest.js';
import { ServiceError } from '../../http/service-error.js';
import type { NativePreparation } from './native-records.js';
import type { NativeStore } from './native-store.js';

const MAX_SOURCE_BYTES = 1024 * 1024;
const MAX_ELF_BYTES = 32 * 1024 * 1024;

/** Reads a file the manifest names, refusing anything that resolves outside the project (symlinks too). */
async function projectFile(projectRoot: string, rel: string, max: number): Promise<Uint8Array> {
  const root = await realpath(projectRoot);
  let real: string;
  try {
    real = await realpath(join(root, rel));
  } catch (e) {
    throw new ServiceError('native_preparation_failed', `cannot read ${rel}: ${(e as Error).message}`, 409);
  }
  if (real !== root && !real.startsWith(root + sep))
    throw new ServiceError(
      'native_preparation_failed',
      `${rel} resolves outside the project (${real}); native program files stay inside it`,
      409,
    );
  try {
    await checkFileSize(real, max);
    return new Uint8Array(await readFileCapped(real, max));
  } catch (e) {
    throw new ServiceError('native_preparation_failed', `cannot read ${rel}: ${(e as Error).message}`, 409);
  }
}

export async function createNativePreparation(
  store: NativeStore,
  projectRoot: string,
  manifest: Manifest,
  programName: string,
  nowIso: string,
): Promise<NativePreparation> {
  const spec: NativeProgramSpec | undefined = manifest.native_programs.find((p) => p.name === programName);
  if (!spec)
    throw new ServiceError(
      'invalid-request',
      `no native program ${JSON.stringify(programName)} in the project; native_programs: ${manifest.native_programs.map((p) => p.name).join(', ') || '(none)'}`,
      400,
    );
  const t0 = performance.now();
  let ue2: Uint8Array;
  let elf: Uint8Array | null = null;
  let source: NativePreparation['build']['source'];
  if (spec.sources) {
    const sources: Record<string, string> = {};
    for (const rel of spec.sources) {
      const name = basename(rel);
      if (name in sources) throw new ServiceError('native_preparation_failed', `two sources are named ${name}; names must be unique`, 409);
      sources[name] = Buffer.from(await projectFile(projectRoot, rel, MAX_SOURCE_BYTES)).toString('utf8');
    }
    try {
      elf = (await buildRiscvProgram({ sources, flags: spec.flags, timeoutMs: spec.build_timeout_ms })).elf;
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw new ServiceError('native_preparation_failed', `building ${programName} failed: ${(e as Error).message}`, 409);
    }
    source = 'sources';
  } else {
    const rel = spec.prebuilt!;
    const bytes = await projectFile(projectRoot, rel, rel.toLowerCase().endsWith('.ue2') ? UE2_MAX_FILE_BYTES : MAX_ELF_BYTES);
    if (rel.toLowerCase().endsWith('.elf')) {
      elf = bytes;
      source = 'prebuilt-elf';
    } else {
      ue2 = bytes;
      source = 'prebuilt-ue2';
    }
  }
  try {
    if (elf) {
      readElf32(elf);
      ue2 = packUe2FromElf(elf);
    }
  } catch (e) {
    throw new ServiceError('native_preparation_failed', `${programName}: not a usable RV32 ELF: ${(e as Error).message}`, 409);
  }
  let image: ReturnType<typeof parseUe2>;
  try {
    image = parseUe2(ue2!);
  } catch (e) {
    throw new ServiceError('native_preparation_failed', `${programName}: not a valid update file: ${(e as Error).message}`, 409);
  }
  const sha = await store.putUe2(ue2!);
  const prep: NativePreparation = {
    preparation_id: randomUUID(),
    program: programName,
    ue2_sha256: sha,
    ue2_size: ue2!.length,
    entry: `0x${image.entry.toString(16).padStart(8, '0')}`,
    records: image.records.length,
    elf_sha256: elf ? sha256Hex(elf) : null,
    created_at: nowIso,
    build: {
      toolchain: source === 'sources' ? `riscv64-unknown-elf-gcc ${RISCV_FLAGS.join(' ')}` : 'none (prebuilt)',
      flags: spec.flags,
      duration_ms: Math.round((performance.now() - t0) * 100) / 100,
      source,
    },
  };
  store.putPreparation(prep);
  return prep;
}
