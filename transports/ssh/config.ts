// Resolve a host the way OpenSSH's client does: the alias is looked up in ~/.ssh/config (parsed by
// the maintained `ssh-config` package — first obtained value wins, `Host`/`Match` sections, case-
// insensitive keywords) and the result is what a connection needs: real host name, port, user,
// identity files and known_hosts files, with `~` and the common %-tokens expanded.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import SSHConfig from 'ssh-config';

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
}

export interface ResolveOptions {
  /** The local user's home (default: $HOME via os.homedir at the caller). */
  home: string;
  /** Config file (default <home>/.ssh/config; a missing file means "no configuration"). */
  configPath?: string;
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
    const config = SSHConfig.parse(readFileSync(configPath, 'utf8'));
    // Match exec would run shell commands found in the file; we never do that.
    computed = config.compute(alias, { ignoreCase: true, matchExec: false });
  }
  const localUser = userInfo().username;
  const hostnameRaw = first(computed.hostname) ?? alias;
  const hostname = hostnameRaw.replace(/%h/g, alias);
  const portText = first(computed.port) ?? '22';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`~/.ssh/config gives host "${alias}" Port "${portText}"; expected a number 1-65535`);
  }
  const user = first(computed.user) ?? localUser;
  const tokens = { home: options.home, localUser, hostname, user, port, alias };
  const configured = all(computed.identityfile).map((p) => expand(p, tokens));
  const identityFiles = configured.length
    ? configured
    : DEFAULT_IDENTITIES.map((n) => join(options.home, '.ssh', n)).filter((p) => existsSync(p));
  const userKnown = all(computed.userknownhostsfile);
  const globalKnown = all(computed.globalknownhostsfile);
  const timeout = first(computed.connecttimeout);
  const hostKeyAlias = first(computed.hostkeyalias);
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
  };
}
