/**
 * Node's `fs` with a `globSync` for Node 20 (see node20-glob.mjs). Enough of Node 22's
 * `fs.globSync(pattern, { cwd })` for what the conformance suite asks of it: patterns of path
 * segments with `**` (any depth, including none), `*` and `?` within a segment; results are paths
 * relative to `cwd`, as Node 22 returns them.
 */
import fs from 'node:fs';
import { join, relative, sep } from 'node:path';

export * from 'node:fs';
export default fs;

function segmentRegExp(segment) {
  const body = segment
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

function matches(parts, segments) {
  if (segments.length === 0) return parts.length === 0;
  const [head, ...rest] = segments;
  if (head === '**') {
    for (let i = 0; i <= parts.length; i++) if (matches(parts.slice(i), rest)) return true;
    return false;
  }
  return parts.length > 0 && segmentRegExp(head).test(parts[0]) && matches(parts.slice(1), rest);
}

export function globSync(pattern, options = {}) {
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const all = fs.readdirSync(cwd, { recursive: true }).map((p) => String(p));
  const found = new Set();
  for (const p of patterns) {
    const segments = p.split('/').filter((s) => s !== '' && s !== '.');
    for (const entry of all) if (matches(entry.split(sep), segments)) found.add(entry);
  }
  return [...found].map((entry) => relative(cwd, join(cwd, entry)));
}
