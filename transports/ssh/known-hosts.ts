// Host-key verification against OpenSSH known_hosts files, as `StrictHostKeyChecking yes` does it:
// the key the server offers must be listed for the host (plain or hashed `|1|salt|hmac` host
// patterns, wildcards, negations, `[host]:port` for non-22 ports). A host with no entry is refused
// as unknown; a host whose entry of the same key type holds another key is refused as changed; a
// key marked @revoked is refused. Nothing is ever added to the file.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';

export type HostKeyVerdict =
  | { ok: true; file: string; line: number }
  | { ok: false; reason: 'unknown' | 'changed' | 'revoked'; message: string };

interface KnownHostEntry {
  file: string;
  line: number;
  marker: '@revoked' | '@cert-authority' | undefined;
  patterns: string;
  keyType: string;
  keyBlob: Buffer;
}

/** OpenSSH's lookup name: `host` on port 22, `[host]:port` otherwise (HostKeyAlias replaces both). */
export function knownHostsName(hostname: string, port: number, hostKeyAlias?: string): string {
  if (hostKeyAlias) return hostKeyAlias.toLowerCase();
  const h = hostname.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** SHA256:… fingerprint, as ssh-keygen -l prints it. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH public key blob (its first length-prefixed string). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

function parseFile(file: string): KnownHostEntry[] {
  if (!existsSync(file)) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: KnownHostEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    let marker: KnownHostEntry['marker'];
    if (fields[0] === '@revoked' || fields[0] === '@cert-authority') marker = fields.shift() as KnownHostEntry['marker'];
    else if (fields[0]?.startsWith('@')) return; // unknown marker: OpenSSH ignores the line
    const [patterns, keyType, b64] = fields;
    if (!patterns || !keyType || !b64) return;
    entries.push({ file, line: i + 1, marker, patterns, keyType, keyBlob: Buffer.from(b64, 'base64') });
  });
  return entries;
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

function hashedMatches(pattern: string, name: string): boolean {
  // |1|base64(salt)|base64(HMAC-SHA1(salt, name))
  const parts = pattern.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  const expected = Buffer.from(parts[3]!, 'base64');
  const actual = createHmac('sha1', salt).update(name).digest();
  return actual.length === expected.length && actual.equals(expected);
}

/** Whether a known_hosts host-pattern field matches `name` (a negated match wins over any positive). */
export function hostPatternsMatch(patterns: string, name: string): boolean {
  if (patterns.startsWith('|')) return hashedMatches(patterns, name);
  let matched = false;
  for (const p of patterns.split(',')) {
    if (p === '') continue;
    const negated = p.startsWith('!');
    const glob = negated ? p.slice(1) : p;
    if (globToRegExp(glob).test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

export class KnownHosts {
  private readonly entries: KnownHostEntry[];

  constructor(readonly files: readonly string[]) {
    this.entries = files.flatMap(parseFile);
  }

  /** Key types listed for `name`, so the client can ask the server for a key it can check. */
  keyTypesFor(name: string): string[] {
    const types = this.entries.filter((e) => !e.marker && hostPatternsMatch(e.patterns, name)).map((e) => e.keyType);
    return [...new Set(types)];
  }

  verify(name: string, keyBlob: Buffer): HostKeyVerdict {
    const offeredType = keyTypeOf(keyBlob);
    const fp = fingerprint(keyBlob);
    const revoked = this.entries.find((e) => e.marker === '@revoked' && e.keyBlob.equals(keyBlob));
    if (revoked) {
      return {
        ok: false,
        reason: 'revoked',
        message: `host key ${offeredType} ${fp} offered by ${name} is marked @revoked in ${revoked.file}:${revoked.line}; refusing to connect`,
      };
    }
    const forHost = this.entries.filter((e) => !e.marker && hostPatternsMatch(e.patterns, name));
    const same = forHost.find((e) => e.keyBlob.equals(keyBlob));
    if (same) return { ok: true, file: same.file, line: same.line };
    const conflicting = forHost.find((e) => e.keyType === offeredType);
    if (conflicting) {
      return {
        ok: false,
        reason: 'changed',
        message:
          `HOST KEY CHANGED for ${name}: the server offered ${offeredType} ${fp}, but ${conflicting.file}:${conflicting.line} ` +
          `lists a different ${offeredType} key. This may be a man-in-the-middle attack, or the host was reinstalled; ` +
          `refusing to connect. If the change is expected, remove the old entry (ssh-keygen -R "${name}") and add the new key.`,
      };
    }
    const listed = forHost.map((e) => e.keyType);
    return {
      ok: false,
      reason: 'unknown',
      message:
        `host key for ${name} is unknown: the server offered ${offeredType} ${fp}, which is not in ${this.files.join(', ')}` +
        (listed.length ? ` (only ${[...new Set(listed)].join(', ')} keys are listed for it)` : '') +
        `; refusing to connect. Verify the fingerprint out of band and add the key to known_hosts (for example by connecting once with ssh).`,
    };
  }
}

/** Host-key algorithms that produce a key of `keyType` (RSA keys sign with rsa-sha2-*). */
export function algorithmsForKeyType(keyType: string): string[] {
  if (keyType === 'ssh-rsa') return ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
  return [keyType];
}
