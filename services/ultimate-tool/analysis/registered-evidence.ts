// Reading a run's registered evidence for an analysis: only names the immutable record registers,
// and only bytes whose SHA-256 and size still match the record. Analyses call this instead of
// reading files, so a tampered or missing input is always caught before it is interpreted.
import { createHash } from 'node:crypto';

export interface RegisteredFile {
  name: string;
  size: number;
  sha256: string;
}

export type EvidenceProblem = 'not-registered' | 'missing' | 'checksum-mismatch';

export class EvidenceIntegrityError extends Error {
  override readonly name = 'EvidenceIntegrityError';
  constructor(
    readonly problem: EvidenceProblem,
    readonly evidenceName: string,
    message: string,
  ) {
    super(message);
  }
}

/** Raw bytes of an evidence file by name (the service's store decides where they live). */
export type EvidenceBytesReader = (name: string) => Promise<Buffer>;

export async function readVerified(registered: readonly RegisteredFile[], read: EvidenceBytesReader, name: string): Promise<Buffer> {
  const entry = registered.find((e) => e.name === name);
  if (!entry) throw new EvidenceIntegrityError('not-registered', name, `${name} is not registered in this run`);
  let bytes: Buffer;
  try {
    bytes = await read(name);
  } catch (err) {
    throw new EvidenceIntegrityError('missing', name, `${name} is registered but cannot be read: ${(err as Error).message}`);
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== entry.size || sha !== entry.sha256)
    throw new EvidenceIntegrityError(
      'checksum-mismatch',
      name,
      `${name} no longer matches its registered SHA-256 (${entry.sha256.slice(0, 12)}…, ${entry.size} bytes): it was altered`,
    );
  return bytes;
}
