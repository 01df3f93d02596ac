// Loading ~/.ssh/config the way OpenSSH reads it, on top of the `ssh-config` parser: `Include`
// directives are followed (globs, `~`, paths relative to ~/.ssh, up to 16 levels deep, missing
// files ignored — as OpenSSH does) and spliced in place, so the parser's `compute` sees one file.
// Nothing here runs a command.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import SSHConfig from 'ssh-config';

/** OpenSSH's limit on nested Include. */
const MAX_INCLUDE_DEPTH = 16;

type ConfigLine = SSHConfig[number];
type Directive = Extract<ConfigLine, { param: string }>;

export function isDirective(line: ConfigLine): line is Directive {
  return line.type === SSHConfig.DIRECTIVE && 'param' in line;
}

export function values(line: Directive): string[] {
  const v = line.value as unknown;
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  if (Array.isArray(v)) return v.map((x: { val: string }) => x.val);
  return [];
}

/** Keywords whose casing matters to the parser's `compute` (it tracks HostName and User by exact name). */
const CANONICAL_CASE: Record<string, string> = { hostname: 'HostName', user: 'User' };

/** `*` and `?` in one path segment, like glob(3) without brackets. */
function segmentPattern(segment: string): RegExp {
  const re = segment
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${re}$`);
}

/** Expand a glob path (wildcards in any segment) into the existing paths, sorted as glob(3) does. */
function expandGlob(pattern: string): string[] {
  const parts = pattern.split('/');
  let paths = [pattern.startsWith('/') ? '/' : '.'];
  for (const part of parts) {
    if (part === '') continue;
    if (!/[*?]/.test(part)) {
      paths = paths.map((p) => join(p, part)).filter((p) => existsSync(p));
      continue;
    }
    const re = segmentPattern(part);
    paths = paths.flatMap((p) => {
      try {
        return readdirSync(p)
          .filter((n) => re.test(n) && (part.startsWith('.') || !n.startsWith('.')))
          .sort()
          .map((n) => join(p, n));
      } catch {
        return [];
      }
    });
  }
  return paths;
}

export interface LoadOptions {
  home: string;
  /** Directory that relative Include paths are resolved against (~/.ssh for the user's config). */
  includeBase: string;
}

/**
 * Parse `path` with every Include expanded in place. An Include inside a Host/Match block applies
 * only within that block: the included file must then hold plain directives (a Host/Match section
 * inside a conditional include is refused — we would have to nest conditions the parser cannot).
 */
export function loadSshConfig(path: string, options: LoadOptions): SSHConfig {
  const out = new SSHConfig();
  splice(readConfig(path), out, options, 0, path);
  return out;
}

function readConfig(path: string): SSHConfig {
  try {
    return SSHConfig.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ssh config ${path}: ${(err as Error).message}`);
  }
}

function includedFiles(line: Directive, options: LoadOptions): string[] {
  return values(line).flatMap((raw) => {
    const expanded = raw === '~' ? options.home : raw.startsWith('~/') ? join(options.home, raw.slice(2)) : raw;
    const abs = isAbsolute(expanded) ? expanded : join(options.includeBase, expanded);
    return /[*?]/.test(abs) ? expandGlob(abs) : existsSync(abs) ? [abs] : [];
  });
}

function normalised(line: ConfigLine): ConfigLine {
  if (!isDirective(line)) return line;
  const canonical = CANONICAL_CASE[line.param.toLowerCase()];
  return canonical && canonical !== line.param ? ({ ...line, param: canonical } as ConfigLine) : line;
}

function splice(lines: SSHConfig, out: SSHConfig, options: LoadOptions, depth: number, from: string): void {
  for (const line of lines) {
    if (!isDirective(line)) continue;
    if (/^include$/i.test(line.param)) {
      for (const file of includeTargets(line, options, depth, from)) splice(readConfig(file), out, options, depth + 1, file);
      continue;
    }
    if (/^(host|match)$/i.test(line.param) && 'config' in line) {
      // An always-true section (`Host *`, `Match all`) is the same as top level: an Include in it
      // may bring whole sections, after which the rest of the section continues as its own copy.
      const unconditional = /^host$/i.test(line.param) ? values(line).join(' ') === '*' : values(line).join(' ').toLowerCase() === 'all';
      let body = new SSHConfig();
      const flush = () => {
        if (body.length) out.push({ ...line, config: body } as ConfigLine);
        body = new SSHConfig();
      };
      for (const inner of line.config) {
        if (!isDirective(inner)) continue;
        if (!/^include$/i.test(inner.param)) {
          body.push(normalised(inner));
          continue;
        }
        for (const file of includeTargets(inner, options, depth, from)) {
          const included = readConfig(file);
          if (unconditional) {
            flush();
            splice(included, out, options, depth + 1, file);
            continue;
          }
          const nested = included.find((l) => isDirective(l) && /^(host|match)$/i.test(l.param));
          if (nested) {
            throw new Error(
              `ssh config ${file} (included inside "${line.param} ${values(line).join(' ')}" of ${from}) has its own "${(nested as Directive).param}" section; an Include with sections inside a conditional block is not supported — move the Include to the top level`,
            );
          }
          const flat = new SSHConfig();
          splice(included, flat, options, depth + 1, file);
          for (const l of flat) body.push(l);
        }
      }
      flush();
      continue;
    }
    out.push(normalised(line));
  }
}

function includeTargets(line: Directive, options: LoadOptions, depth: number, from: string): string[] {
  if (depth + 1 > MAX_INCLUDE_DEPTH) {
    throw new Error(`ssh config ${from}: Include nested deeper than ${MAX_INCLUDE_DEPTH} levels (a loop?)`);
  }
  return includedFiles(line, options);
}
