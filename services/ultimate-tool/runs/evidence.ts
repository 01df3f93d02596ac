// Evidence of one run: files under `<store>/runs/<run_id>/`, each registered in the run record
// with name, media type, size and SHA-256. Reading is confined to registered names: the name is
// looked up in the record (never joined as a path first), and the bytes must still hash to the
// registered SHA-256. Text comes back inline up to 128 KiB, PNG as base64 up to 4 MiB, anything
// else as size + SHA-256 only.
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDirectory, sha256File, sha256Hex } from '../../../common/index.js';
import { EVIDENCE_READ_DEADLINE_MS, EvidenceFileError, hashOpenEvidenceFile, openEvidenceFile } from './evidence-file.js';
import type { EvidenceEntry, RunRecord } from '../api/schemas.js';
import { ServiceError } from '../http/service-error.js';

export const TEXT_INLINE_LIMIT = 128 * 1024;
export const PNG_INLINE_LIMIT = 4 * 1024 * 1024;

/** Evidence names are plain file names: no separators, no leading dot. */
export const EVIDENCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Writes a run's evidence files. `add` writes without waiting for the disk; `sync` makes every
 * file and the folder durable at once (one batch of fsyncs instead of one per file). The run
 * record that registers the files is committed only after `sync`, so a crash in between leaves
 * an unregistered folder that the store removes on the next start.
 */
export class EvidenceWriter {
  readonly entries: EvidenceEntry[] = [];
  #made = false;
  constructor(readonly dir: string) {}

  async add(name: string, mediaType: string, bytes: Uint8Array): Promise<EvidenceEntry> {
    if (!EVIDENCE_NAME.test(name)) throw new Error(`bad evidence name ${JSON.stringify(name)}`);
    if (this.entries.some((e) => e.name === name)) throw new Error(`evidence ${name} registered twice`);
    if (!this.#made) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.#made = true;
    }
    const fh = await open(join(this.dir, name), 'wx', 0o600);
    try {
      await fh.writeFile(bytes);
    } finally {
      await fh.close();
    }
    const entry = { name, media_type: mediaType, size: bytes.length, sha256: sha256Hex(bytes) };
    this.entries.push(entry);
    return entry;
  }

  /** The folder, created on first use (for writers that stream a large file into it). */
  async folder(): Promise<string> {
    if (!this.#made) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.#made = true;
    }
    return this.dir;
  }

  /**
   * Registers a file something else wrote into the folder (a debug-stream capture is streamed to
   * disk, never held in memory): hashed from disk in chunks.
   */
  async adopt(name: string, mediaType: string): Promise<EvidenceEntry> {
    if (!EVIDENCE_NAME.test(name)) throw new Error(`bad evidence name ${JSON.stringify(name)}`);
    if (this.entries.some((e) => e.name === name)) throw new Error(`evidence ${name} registered twice`);
    const { sha256, size } = await sha256File(join(await this.folder(), name));
    const entry = { name, media_type: mediaType, size, sha256 };
    this.entries.push(entry);
    return entry;
  }

  /** fsync every written file and the folder (in parallel). */
  async sync(): Promise<void> {
    if (!this.#made) return;
    await Promise.all(
      this.entries.map(async (e) => {
        const fh = await open(join(this.dir, e.name), 'r');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
      }),
    );
    await fsyncDirectory(this.dir);
  }
}

export type EvidenceRead = EvidenceEntry & { kind: 'text' | 'image' | 'binary'; text?: string; base64?: string };

function kindOf(mediaType: string): 'text' | 'image' | 'binary' {
  if (mediaType.startsWith('text/') || mediaType === 'application/json') return 'text';
  if (mediaType === 'image/png') return 'image';
  return 'binary';
}

export async function readEvidence(record: Pick<RunRecord, 'run_id' | 'evidence'>, runDir: string, name: string): Promise<EvidenceRead> {
  if (!EVIDENCE_NAME.test(name) || name.includes('..'))
    throw new ServiceError(
      'evidence_not_registered',
      `evidence name ${JSON.stringify(name)} is not a plain registered file name (no paths, no "..", no leading dot)`,
      404,
    );
  const entry = record.evidence.find((e) => e.name === name);
  if (!entry)
    throw new ServiceError('evidence_not_registered', `run ${record.run_id} has no evidence named ${JSON.stringify(name)}`, 404, {
      registered: record.evidence.map((e) => e.name),
    });
  const kind = kindOf(entry.media_type);
  const limit = kind === 'text' ? TEXT_INLINE_LIMIT : kind === 'image' ? PNG_INLINE_LIMIT : Number.POSITIVE_INFINITY;
  if (entry.size > limit)
    throw new ServiceError(
      'evidence_too_large',
      `evidence ${name} is ${entry.size} bytes; ${kind} evidence is returned up to ${limit} bytes`,
      413,
      {
        size: entry.size,
        limit,
      },
    );
  // Binaries are never returned, but their checksum is still verified (reading in chunks).
  // Only a regular file is opened (evidence-file.ts): a FIFO put in its place must not hang the service.
  const path = join(runDir, name);
  const fh = await openEvidenceFile(path).catch((e: unknown) => {
    if (e instanceof EvidenceFileError)
      throw new ServiceError(
        'evidence_checksum_mismatch',
        `evidence ${name} of run ${record.run_id}: ${e.message.replace(path, 'its file')}`,
        409,
        {
          problem: e.problem,
        },
      );
    return undefined;
  });
  if (!fh) throw new ServiceError('evidence_checksum_mismatch', `evidence ${name} is registered but its file is missing`, 409);
  let bytes: Buffer;
  let actual: string;
  try {
    const st = await fh.stat();
    if (st.size !== entry.size)
      throw new ServiceError(
        'evidence_checksum_mismatch',
        `evidence ${name} changed on disk: ${st.size} bytes, registered ${entry.size}`,
        409,
      );
    // Binaries are never returned: hash them in chunks (a debug-stream capture is ~120 MB).
    bytes = kind === 'binary' ? Buffer.alloc(0) : await fh.readFile({ signal: AbortSignal.timeout(EVIDENCE_READ_DEADLINE_MS) });
    actual = kind === 'binary' ? (await hashOpenEvidenceFile(fh, path)).sha256 : sha256Hex(bytes);
  } catch (e) {
    if (e instanceof EvidenceFileError || (e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError')
      throw new ServiceError(
        'evidence_checksum_mismatch',
        `evidence ${name} of run ${record.run_id} could not be read within ${EVIDENCE_READ_DEADLINE_MS} ms`,
        409,
        {
          problem: 'read_deadline',
        },
      );
    throw e;
  } finally {
    await fh.close();
  }
  if (actual !== entry.sha256)
    throw new ServiceError('evidence_checksum_mismatch', `evidence ${name} no longer matches its registered SHA-256`, 409, {
      registered: entry.sha256,
      actual,
    });
  if (kind === 'text') return { ...entry, kind, text: bytes.toString('utf8') };
  if (kind === 'image') return { ...entry, kind, base64: bytes.toString('base64') };
  return { ...entry, kind };
}
