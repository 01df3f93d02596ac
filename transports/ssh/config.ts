// Resolve a host the way OpenSSH's client does: the alias is looked up in ~/.ssh/config (parsed by
// the maintained `ssh-config` package — first obtained value wins, `Host`/`Match` sections, case-
// insensitive keywords; `Include` expanded by config-file.ts) and the result is what a connection
// needs: real host name, port, user, identity files, agent, known_hosts files and jump hosts, with
// `~` and the common %-tokens expanded. A directive that would change how OpenSSH connects and that
// we do not implement is refused with its name, never silently ignored.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import type SSHConfig from 'ssh-config';
import { isDirective, loadSshConfig, values } from './config-file.js';

/** One hop of ProxyJump: `[user@]host[:port]` (or `ssh://[user@]host[:port]`). */
export interface JumpHost {
  readonly host: string;
  readonly user?: string;
  readonly port?: number;
}

export interface ResolvedSshHost {
  /** The name the caller used (the `Host` alias). */
  readonly alias: string;
  /** HostName after config resolution (the alias itself when none is configured). */
  readonly hostname: string;
  readonly port: number;
  readonly user: string;
  /** Identity files that were configured (expanded); when none, OpenSSH's defaults that exist. */
  readonly identityFiles: readonly string[];
  /** Whether IdentitiesOnly is set: the agent's keys are then not offered. */
  readonly identitiesOnly: boolean;
  readonly userKnownHostsFiles: readonly string[];
  readonly globalKnownHostsFiles: readonly string[];
  /** HostKeyAlias: the name looked up in known_hosts instead of the host name. */
  readonly hostKeyAlias?: string;
  /** ConnectTimeout in milliseconds, when configured. */
  readonly connectTimeoutMs?: number;
  /** ProxyJump hops, in order (empty: direct connection). */
  readonly proxyJump: readonly JumpHost[];
  /** IdentityAgent: a socket path, `none` (no agent), or undefined ($SSH_AUTH_SOCK). */
  readonly identityAgent?: string;
}

/**
 * Directives that change where or how OpenSSH connects and that we do not implement: refused when
 * they apply to the host (values that mean "off" are fine). Everything else we do not use (e.g.
 * ServerAliveInterval, ControlMaster, ForwardAgent) does not change which machine we reach or
 * how it is trusted, and is ignored.
 */
const UNSUPPORTED: Record<string, { off?: RegExp; why: string }> = {
  proxycommand: { off: /^none$/i, why: 'running a local command as the transport is not supported; use ProxyJump' },
  certificatefile: { why: 'certificate authentication is not supported' },
  pkcs11provider: { off: /^none$/i, why: 'PKCS#11 keys are not supported; load the key into ssh-agent instead' },
  securitykeyprovider: { off: /^internal$/i, why: 'security-key middleware is not supported; use ssh-agent' },
  knownhostscommand: { off: /^none$/i, why: 'commands are never run from ssh config' },
  canonicalizehostname: { off: /^no$/i, why: 'host name canonicalization is not supported; give the full HostName' },
  proxyusefdpass: { off: /^no$/i, why: 'it only applies to ProxyCommand, which is not supported' },
};

/** Match criteria ssh-config evaluates; `exec` would run commands, the others it cannot evaluate. */
const SUPPORTED_MATCH = new Set(['all', 'final', 'host', 'originalhost', 'user', 'localuser']);

export interface ResolveOptions {
  /** The local user's home (default: $HOME via os.homedir at the caller). */
  home: string;
  /** Config file (default <home>/.ssh/config; a missing file means "no configuration"). */
  configPath?: string;
  /** ProxyJump's `user@` and `:port` override what the config says for a jump host. */
  user?: string;
  port?: number;
}

/** Parse a ProxyJump value: `none`, or comma-separated `[user@]host[:port]` / `ssh://…` hops. */
export function parseProxyJump(value: string, where: string): JumpHost[] {
  if (/^none$/i.test(value.trim())) return [];
  return value.split(',').map((raw) => {
    const hop = raw.trim().replace(/^ssh:\/\//, '');
    const m = /^(?:([^@\s]+)@)?(\[[^\]]+\]|[^:@\s[\]]+)(?::(\d+))?$/.exec(hop);
    if (!m) throw new Error(`${where}: ProxyJump hop "${raw.trim()}" is not [user@]host[:port]`);
    const port = m[3] ? Number(m[3]) : undefined;
    if (port !== undefined && (port < 1 || port > 65535))
      throw new Error(`${where}: ProxyJump hop "${raw.trim()}" has port ${port}; expected 1-65535`);
    return { host: m[2]!.replace(/^\[|\]$/g, ''), ...(m[1] ? { user: m[1] } : {}), ...(port !== undefined ? { port } : {}) };
  });
}

/** Whether a `Host`-style pattern list (with `!` negation) matches `name`. */
function patternListMatches(patterns: string, name: string): boolean {
  let matched = false;
  for (const raw of patterns.split(',')) {
    const negated = raw.startsWith('!');
    const p = negated ? raw.slice(1) : raw;
    const re = new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    );
    if (re.test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/**
 * A `Match` block with a criterion we cannot evaluate (`exec` would run a command; `canonical`,
 * `localnetwork`, `tagged`) is refused when it could apply to this host: when its host criteria, if
 * any, match. Treating it as "no match" would silently connect with other settings than OpenSSH.
 */
function refuseUnsupportedMatch(config: SSHConfig, alias: string, source: string): void {
  for (const line of config) {
    if (!isDirective(line) || !/^match$/i.test(line.param) || !('criteria' in line)) continue;
    const criteria = (line as { criteria: Record<string, unknown> }).criteria;
    const keys = Object.keys(criteria).map((k) => k.toLowerCase());
    const unsupported = keys.filter((k) => !SUPPORTED_MATCH.has(k));
    if (unsupported.length === 0) continue;
    const hostCriteria = Object.entries(criteria).filter(([k]) => /^(host|originalhost)$/i.test(k));
    const mayApply = hostCriteria.every(([, v]) => typeof v !== 'string' || patternListMatches(v, alias));
    if (!mayApply) continue;
    const why = unsupported.includes('exec') ? 'commands are never run from ssh config' : 'it cannot be evaluated here';
    throw new Error(
      `${source}: "Match ${values(line).join(' ')}" may apply to host "${alias}" and uses "${unsupported.join('", "')}", which is not supported (${why}); give this host its own Host block before it`,
    );
  }
}

const DEFAULT_IDENTITIES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk', 'id_xmss', 'id_dsa'];

function first(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value[0] : value;
}

function all(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(/\s+/)).filter((v) => v !== '');
}

/** `~` and the %-tokens OpenSSH expands in IdentityFile/UserKnownHostsFile (%d %u %h %r %p %n %%). */
function expand(path: string, t: { home: string; localUser: string; hostname: string; user: string; port: number; alias: string }): string {
  let out = path === '~' ? t.home : path.startsWith('~/') ? join(t.home, path.slice(2)) : path;
  out = out.replace(/%([%duhrpn])/g, (_, c: string) => {
    switch (c) {
      case '%':
        return '%';
      case 'd':
        return t.home;
      case 'u':
        return t.localUser;
      case 'h':
        return t.hostname;
      case 'r':
        return t.user;
      case 'p':
        return String(t.port);
      case 'n':
        return t.alias;
      default:
        return _;
    }
  });
  return out;
}

export function resolveSshHost(alias: string, options: ResolveOptions): ResolvedSshHost {
  const configPath = options.configPath ?? join(options.home, '.ssh', 'config');
  let computed: Record<string, string | string[]> = {};
  if (existsSync(configPath)) {
    const config = loadSshConfig(configPath, { home: options.home, includeBase: join(options.home, '.ssh') });
    refuseUnsupportedMatch(config, alias, configPath);
    // CanonicalDomains makes the parser run nslookup; canonicalization is refused below anyway.
    const safe = config.filter((l) => !(isDirective(l) && /^canonicaldomains$/i.test(l.param))) as SSHConfig;
    // Match exec would run shell commands found in the file; we never do that.
    computed = safe.compute(alias, { ignoreCase: true, matchExec: false });
    for (const [key, rule] of Object.entries(UNSUPPORTED)) {
      const value = first(computed[key]);
      if (value !== undefined && !(rule.off?.test(value.trim()) ?? false)) {
        throw new Error(`${configPath}: "${key}" (${value}) applies to host "${alias}" and is not supported: ${rule.why}`);
      }
    }
  }
  const localUser = userInfo().username;
  const hostnameRaw = first(computed.hostname) ?? alias;
  const hostname = hostnameRaw.replace(/%h/g, alias);
  const portText = options.port !== undefined ? String(options.port) : (first(computed.port) ?? '22');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`~/.ssh/config gives host "${alias}" Port "${portText}"; expected a number 1-65535`);
  }
  const user = options.user ?? first(computed.user) ?? localUser;
  const tokens = { home: options.home, localUser, hostname, user, port, alias };
  const configured = all(computed.identityfile).map((p) => expand(p, tokens));
  const identityFiles = configured.length
    ? configured
    : DEFAULT_IDENTITIES.map((n) => join(options.home, '.ssh', n)).filter((p) => existsSync(p));
  const userKnown = all(computed.userknownhostsfile);
  const globalKnown = all(computed.globalknownhostsfile);
  const timeout = first(computed.connecttimeout);
  const hostKeyAlias = first(computed.hostkeyalias);
  const jump = first(computed.proxyjump);
  const agent = first(computed.identityagent);
  return {
    alias,
    hostname,
    port,
    user,
    identityFiles,
    identitiesOnly: (first(computed.identitiesonly) ?? 'no').toLowerCase() === 'yes',
    userKnownHostsFiles: (userKnown.length ? userKnown : ['~/.ssh/known_hosts', '~/.ssh/known_hosts2']).map((p) => expand(p, tokens)),
    globalKnownHostsFiles: (globalKnown.length ? globalKnown : ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']).map((p) =>
      expand(p, tokens),
    ),
    ...(hostKeyAlias ? { hostKeyAlias } : {}),
    ...(timeout && Number(timeout) > 0 ? { connectTimeoutMs: Number(timeout) * 1000 } : {}),
    proxyJump: jump ? parseProxyJump(jump, `${configPath}, host "${alias}"`) : [],
    ...(agent ? { identityAgent: agent === 'SSH_AUTH_SOCK' || agent === '$SSH_AUTH_SOCK' ? undefined : expand(agent, tokens) } : {}),
  };
}
