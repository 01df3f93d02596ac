// A real OpenSSH server for tests: Debian's /usr/sbin/sshd started in the foreground on a loopback
// port, with a freshly generated host key and user key, its own authorized_keys, and two separate
// HOME directories — one for the local (client) side, one for the remote side — so local and remote
// state (~/.topup, ~/.ssh) are really separate and the machine's real ~/.ssh is never touched.
//
// How the remote side gets its own HOME: the tests run as the current user (root in CI), and sshd's
// `SetEnv HOME=…` overrides the passwd home for every session it starts. `SetEnv PATH=…` puts a
// directory holding a `topup` wrapper (runs the repo's bin from source through tsx) on the remote PATH.
// sshd itself looks for authorized keys in the temp dir (`AuthorizedKeysFile` absolute path).
//
// Running sshd as root needs its privilege-separation directory /run/sshd (created by Debian's
// service scripts, absent in containers); it is created here when missing, like the init script does.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, chmodSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { repoRoot } from './bin.js';

export const SSHD_PATH = '/usr/sbin/sshd';

export interface SshdFixture {
  /** Loopback port sshd listens on. */
  readonly port: number;
  /** The `Host` alias written to the client-side ~/.ssh/config (HostName 127.0.0.1, Port, User, IdentityFile). */
  readonly hostAlias: string;
  /** Login user (the user running the tests). */
  readonly user: string;
  /** Temp dir holding everything; removed by close(). */
  readonly root: string;
  /** HOME of the local (client) side: .ssh/config, .ssh/id_ed25519, .ssh/known_hosts. */
  readonly clientHome: string;
  /** HOME the remote side sees (sshd SetEnv). */
  readonly remoteHome: string;
  /** The server's host public key line ("ssh-ed25519 AAAA…"). */
  readonly hostPublicKey: string;
  /** A second user key that is NOT authorized (for the wrong-key test). */
  readonly unauthorizedKeyPath: string;
  /** Remote PATH directory holding the `topup` wrapper. */
  readonly remoteBinDir: string;
  /** Rewrite the client's known_hosts with the given content. */
  writeKnownHosts(content: string): void;
  /** known_hosts line for this server, optionally hashed with `ssh-keygen -H`. */
  knownHostsLine(opts?: { hashed?: boolean; key?: string }): string;
  /** Kill every remote topup daemon started under remoteHome (pid files next to their sockets). */
  killRemoteDaemons(): number[];
  /** Open SSH connections: sshd's per-connection child processes (Linux /proc). */
  connectionCount(): number;
  /** The pids of those per-connection processes. */
  sessionPids(): number[];
  /** sshd's log so far (LogLevel VERBOSE; capped at the last 256 KiB). */
  log(): string;
  close(): Promise<void>;
}

export interface SshdOptions {
  /** Remote command installed as `topup` on the remote PATH (default: repo bin/topup.ts via tsx). */
  remoteTopupScript?: string;
  /** Extra environment for remote sessions (sshd SetEnv). */
  remoteEnv?: Record<string, string>;
  /** More authorized public keys (lines of a .pub file), e.g. another fixture's user key. */
  extraAuthorizedKeys?: string[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function keygen(path: string, comment: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path], { stdio: 'ignore' });
}

/** Default remote `topup`: the repo's bin from source, with tsx resolved absolutely (remote cwd is not the repo). */
function defaultTopupWrapper(): string {
  const tsx = import.meta.resolve('tsx');
  return `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(join(repoRoot, 'bin', 'topup.ts'))} "$@"\n`;
}

/** Processes whose parent is `pid` (Linux /proc). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid …; comm may contain spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === pid) out.push(Number(name));
  }
  return out;
}

/** Whether a process exists (and is not a zombie). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function waitForListening(child: ChildProcess, port: number, deadlineMs: number, logSink: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => finish(new Error(`sshd did not report listening within ${deadlineMs} ms:\n${stderr}`)), deadlineMs);
    const onData = (b: Buffer) => {
      stderr += b.toString();
      if (stderr.includes(`Server listening on 127.0.0.1 port ${port}`)) finish();
    };
    const onExit = (code: number | null) => finish(new Error(`sshd exited with code ${code}:\n${stderr}`));
    function finish(err?: Error) {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining stderr so sshd never blocks on a full pipe (TOPUP_TEST_SSHD_LOG=1 shows it).
      logSink(stderr);
      child.stderr?.on('data', (b: Buffer) => {
        logSink(b.toString());
        if (process.env.TOPUP_TEST_SSHD_LOG) process.stderr.write(`[sshd] ${b}`);
      });
      if (err) reject(err);
      else resolve();
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startSshd(options: SshdOptions = {}): Promise<SshdFixture> {
  const root = mkdtempSync(join(tmpdir(), 'topup-sshd-'));
  chmodSync(root, 0o755);
  const clientHome = join(root, 'client-home');
  const remoteHome = join(root, 'remote-home');
  const remoteBinDir = join(root, 'remote-bin');
  const serverDir = join(root, 'server');
  for (const d of [join(clientHome, '.ssh'), remoteHome, remoteBinDir, serverDir]) mkdirSync(d, { recursive: true, mode: 0o700 });

  const hostKey = join(serverDir, 'ssh_host_ed25519_key');
  keygen(hostKey, 'topup-test-host');
  const userKey = join(clientHome, '.ssh', 'id_ed25519');
  keygen(userKey, 'topup-test-user');
  const unauthorizedKeyPath = join(root, 'unauthorized_ed25519');
  keygen(unauthorizedKeyPath, 'topup-test-stranger');
  const authorizedKeys = join(serverDir, 'authorized_keys');
  const authorized = [readFileSync(`${userKey}.pub`, 'utf8').trim(), ...(options.extraAuthorizedKeys ?? [])];
  writeFileSync(authorizedKeys, `${authorized.join('\n')}\n`, { mode: 0o600 });
  const hostPublicKey = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');

  const topupWrapper = join(remoteBinDir, 'topup');
  writeFileSync(topupWrapper, options.remoteTopupScript ?? defaultTopupWrapper(), { mode: 0o755 });

  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const user = userInfo().username;
  const hostAlias = 'topup-test-remote';
  const remoteEnv: Record<string, string> = {
    HOME: remoteHome,
    PATH: `${remoteBinDir}:/usr/local/bin:/usr/bin:/bin`,
    ...options.remoteEnv,
  };
  const setEnv = Object.entries(remoteEnv)
    .map(([k, v]) => `"${k}=${v}"`)
    .join(' ');

  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const config = join(serverDir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(serverDir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${authorizedKeys}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        'PermitRootLogin prohibit-password',
        'AllowStreamLocalForwarding yes',
        // sshd ties the stream-local permission check to the TCP forwarding permissions (PermitOpen
        // any); with AllowTcpForwarding no every direct-streamlocal request is denied.
        'AllowTcpForwarding local',
        'X11Forwarding no',
        'PrintMotd no',
        'LogLevel VERBOSE',
        `SetEnv ${setEnv}`,
        '',
      ].join('\n'),
    );
    const child = spawn(SSHD_PATH, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let sshdLog = '';
    const logSink = (text: string) => {
      sshdLog = (sshdLog + text).slice(-256 * 1024);
    };
    try {
      await waitForListening(child, port, 10_000, logSink);
    } catch (err) {
      lastError = err;
      child.kill('SIGKILL');
      continue;
    }

    writeFileSync(
      join(clientHome, '.ssh', 'config'),
      [`Host ${hostAlias}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${user}`, '  IdentityFile ~/.ssh/id_ed25519', ''].join('\n'),
      { mode: 0o600 },
    );
    const knownHostsPath = join(clientHome, '.ssh', 'known_hosts');
    const knownHostsLine = (opts: { hashed?: boolean; key?: string } = {}): string => {
      const plain = `[127.0.0.1]:${port} ${opts.key ?? hostPublicKey}`;
      if (!opts.hashed) return plain;
      const tmp = join(root, `kh-${Math.random().toString(36).slice(2)}`);
      writeFileSync(tmp, `${plain}\n`);
      execFileSync('ssh-keygen', ['-q', '-H', '-f', tmp], { stdio: 'ignore' });
      const hashed = readFileSync(tmp, 'utf8').trim();
      rmSync(tmp, { force: true });
      rmSync(`${tmp}.old`, { force: true });
      return hashed;
    };
    const writeKnownHosts = (content: string) => writeFileSync(knownHostsPath, content, { mode: 0o600 });
    writeKnownHosts(`${knownHostsLine()}\n`);

    const killRemoteDaemons = (): number[] => {
      const killed: number[] = [];
      const dir = join(remoteHome, '.topup', 'sockets');
      if (!existsSync(dir)) return killed;
      for (const name of readdirSync(dir)) {
        if (!name.endsWith('.pid')) continue;
        const pid = Number(readFileSync(join(dir, name), 'utf8').trim());
        if (!Number.isInteger(pid) || pid <= 0) continue;
        try {
          process.kill(pid, 'SIGKILL');
          killed.push(pid);
        } catch {
          // already gone
        }
        rmSync(join(dir, name), { force: true });
      }
      return killed;
    };

    return {
      port,
      hostAlias,
      user,
      root,
      clientHome,
      remoteHome,
      hostPublicKey,
      unauthorizedKeyPath,
      remoteBinDir,
      writeKnownHosts,
      knownHostsLine,
      killRemoteDaemons,
      connectionCount: () => (child.pid ? childPids(child.pid).length : 0),
      sessionPids: () => (child.pid ? childPids(child.pid) : []),
      log: () => sshdLog,
      async close() {
        killRemoteDaemons();
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise<void>((r) => child.once('exit', () => r()));
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(root, { recursive: true, force: true });
      },
    };
  }
  rmSync(root, { recursive: true, force: true });
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
