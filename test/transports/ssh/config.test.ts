// ~/.ssh/config beyond plain Host blocks: Include (globs, relative to ~/.ssh, inside blocks),
// Match host, ProxyJump (two real sshd instances on loopback, one the jump host), IdentitiesOnly
// with an agent holding the right key, and directives we do not implement refused by name.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { resolveSshHost, parseProxyJump } from '../../../transports/ssh/config.js';
import { SshConnection, SshError } from '../../../transports/ssh.js';
import { parseToolPayload } from '../../../src/index.js';
import { startSshd, type SshdFixture } from '../../helpers/sshd.js';
import { startHarness, standInWrapper, tempDir, toolContext, waitFor } from '../../adapters/topup/routing/harness.js';

function withConfig(files: Record<string, string>, run: (home: string) => void): void {
  const dir = tempDir('topup-sshcfg-');
  try {
    for (const [name, text] of Object.entries(files)) {
      const path = join(dir.path, '.ssh', name);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    }
    run(dir.path);
  } finally {
    dir.remove();
  }
}

describe('ssh config: Include, Match, ProxyJump parsing, refusals', () => {
  test('Include: globs relative to ~/.ssh in order, ~ paths, nested includes, first value wins', () => {
    withConfig(
      {
        config: 'Include conf.d/*.conf\nInclude ~/.ssh/extra\nHost *\n  User fallback\n',
        'conf.d/10-a.conf': 'Host alpha\n  HostName alpha.example\n  Port 2201\n',
        'conf.d/20-b.conf': 'Host alpha beta\n  Port 9999\n  User bee\n',
        'conf.d/skip.txt': 'Host alpha\n  User never\n',
        extra: 'Include deeper\n',
        deeper: 'Host gamma\n  HostName gamma.example\n',
      },
      (home) => {
        const a = resolveSshHost('alpha', { home });
        assert.equal(a.hostname, 'alpha.example');
        assert.equal(a.port, 2201, '10-a.conf comes before 20-b.conf');
        assert.equal(a.user, 'bee');
        assert.equal(resolveSshHost('gamma', { home }).hostname, 'gamma.example');
        assert.equal(resolveSshHost('other', { home }).user, 'fallback');
      },
    );
  });

  test('Include inside a Host block applies only there; inside "Host *" it may bring sections', () => {
    withConfig(
      {
        config: 'Host alpha\n  Include alpha-extras\nHost *\n  Include sections\n  User star\n',
        'alpha-extras': 'Port 2202\n',
        sections: 'Host beta\n  Port 2203\n',
      },
      (home) => {
        assert.equal(resolveSshHost('alpha', { home }).port, 2202);
        assert.equal(resolveSshHost('beta', { home }).port, 2203);
        assert.equal(resolveSshHost('beta', { home }).user, 'star', 'the rest of "Host *" still applies after the Include');
        assert.equal(resolveSshHost('gamma', { home }).port, 22);
      },
    );
  });

  test('an Include with sections inside a conditional block is refused, naming the file', () => {
    withConfig({ config: 'Host alpha\n  Include nested\n', nested: 'Host beta\n  Port 1\n' }, (home) => {
      assert.throws(() => resolveSshHost('alpha', { home }), /nested.*has its own "Host" section/);
    });
  });

  test('Match host tests the HostName given so far; Match originalhost the alias', () => {
    withConfig(
      {
        config: 'Host box\n  Hostname 10.1.2.3\nMatch host 10.1.*\n  Port 2204\nMatch originalhost box\n  User matched\n',
      },
      (home) => {
        const h = resolveSshHost('box', { home });
        assert.equal(h.hostname, '10.1.2.3');
        assert.equal(h.port, 2204);
        assert.equal(h.user, 'matched');
        assert.equal(resolveSshHost('other', { home }).port, 22);
      },
    );
  });

  test('ProxyJump hops: user@host:port lists, ssh:// URIs, none', () => {
    assert.deepEqual(parseProxyJump('a, bob@b:2222,ssh://c', 'x'), [{ host: 'a' }, { host: 'b', user: 'bob', port: 2222 }, { host: 'c' }]);
    assert.deepEqual(parseProxyJump('none', 'x'), []);
    assert.throws(() => parseProxyJump('a b', 'cfg'), /ProxyJump hop "a b" is not \[user@\]host\[:port\]/);
    withConfig({ config: 'Host t\n  ProxyJump j1,root@j2:2022\n' }, (home) => {
      assert.deepEqual(resolveSshHost('t', { home }).proxyJump, [{ host: 'j1' }, { host: 'j2', user: 'root', port: 2022 }]);
    });
  });

  test('unsupported directives that apply to the host are refused by name; elsewhere they do not matter', () => {
    withConfig(
      {
        config: [
          'Host viacmd',
          '  ProxyCommand nc %h %p',
          'Host withcert',
          '  CertificateFile ~/.ssh/id_ed25519-cert.pub',
          'Host canon',
          '  CanonicalizeHostname yes',
          '  CanonicalDomains example.org',
          'Host nocmd',
          '  ProxyCommand none',
          'Match host runs-exec exec "test -e /tmp/x"',
          '  Port 1',
          '',
        ].join('\n'),
      },
      (home) => {
        assert.throws(
          () => resolveSshHost('viacmd', { home }),
          /"proxycommand" \(nc %h %p\) applies to host "viacmd" and is not supported.*ProxyJump/,
        );
        assert.throws(() => resolveSshHost('withcert', { home }), /"certificatefile".*certificate authentication is not supported/);
        assert.throws(() => resolveSshHost('canon', { home }), /"canonicalizehostname"/);
        assert.throws(
          () => resolveSshHost('runs-exec', { home }),
          /"Match host runs-exec exec test -e \/tmp\/x" may apply to host "runs-exec" and uses "exec"/,
        );
        assert.equal(resolveSshHost('nocmd', { home }).port, 22, '"ProxyCommand none" is the default, not refused');
        assert.equal(resolveSshHost('plain', { home }).port, 22, 'a Match exec for another host does not matter');
      },
    );
  });
});

describe('ssh config against real sshd instances', () => {
  let jump: SshdFixture;
  let target: SshdFixture;
  let home: string;
  before(async () => {
    jump = await startSshd({ remoteTopupScript: standInWrapper() });
    // The target authorizes the jump fixture's client key: one client HOME reaches both.
    const clientKey = readFileSync(join(jump.clientHome, '.ssh', 'id_ed25519.pub'), 'utf8').trim();
    target = await startSshd({ remoteTopupScript: standInWrapper(), extraAuthorizedKeys: [clientKey] });
    home = jump.clientHome;
    mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
    writeFileSync(
      join(home, '.ssh', 'config'),
      [
        'Include conf.d/*',
        `Host ${jump.hostAlias}`,
        '  HostName 127.0.0.1',
        `  Port ${jump.port}`,
        `  User ${jump.user}`,
        '  IdentityFile ~/.ssh/id_ed25519',
        'Host via-match',
        '  HostName 127.0.0.1',
        '  IdentityFile ~/.ssh/id_ed25519',
        `Match host 127.0.0.1 originalhost via-match`,
        `  Port ${target.port}`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(home, '.ssh', 'conf.d', 'target'),
      [
        'Host behind-jump',
        '  HostName 127.0.0.1',
        `  Port ${target.port}`,
        '  IdentityFile ~/.ssh/id_ed25519',
        `  ProxyJump ${jump.hostAlias}`,
        '',
      ].join('\n'),
    );
    // Both servers' keys, under their [127.0.0.1]:port names.
    writeFileSync(join(home, '.ssh', 'known_hosts'), `${jump.knownHostsLine()}\n${target.knownHostsLine()}\n`);
  });
  after(async () => {
    await target?.close();
    await jump?.close();
  });

  test('Include + Match host pick the port of the right server', async () => {
    const conn = await SshConnection.connect('via-match', { home, agentSocket: '' });
    try {
      assert.equal(conn.host.port, target.port);
      assert.equal((await conn.exec('printf %s "$HOME"')).stdout, target.remoteHome);
    } finally {
      conn.close();
    }
  });

  test('ProxyJump: the connection runs through the jump host, and closing it closes the hop', { timeout: 60_000 }, async () => {
    assert.equal(jump.connectionCount(), 0);
    const conn = await SshConnection.connect('behind-jump', { home, agentSocket: '' });
    try {
      assert.equal((await conn.exec('printf %s "$HOME"')).stdout, target.remoteHome, 'the target answered');
      assert.equal(jump.connectionCount(), 1, 'one connection to the jump host carries it');
    } finally {
      conn.close();
    }
    await waitFor('the jump connection to close', () => jump.connectionCount() === 0);
    await waitFor('the target connection to close', () => target.connectionCount() === 0);
  });

  test('ProxyJump: losing the jump host ends the target connection', { timeout: 60_000 }, async () => {
    const conn = await SshConnection.connect('behind-jump', { home, agentSocket: '' });
    const closed = new Promise<string>((r) => conn.onClose(r));
    // Kill the jump host's per-connection sshd process: the tunnel under the target connection goes.
    const [session] = jump.sessionPids();
    assert.ok(session, 'a jump session process exists');
    process.kill(session, 'SIGKILL');
    assert.match(await closed, /closed|failed/);
    await waitFor('the target connection to close', () => target.connectionCount() === 0);
  });

  test('ProxyJump: an unknown jump host key is refused, naming the hop', async () => {
    writeFileSync(join(home, '.ssh', 'known_hosts'), `${target.knownHostsLine()}\n`);
    try {
      await assert.rejects(SshConnection.connect('behind-jump', { home, agentSocket: '' }), (err: unknown) => {
        assert.ok(err instanceof SshError);
        assert.equal(err.phase, 'host-key');
        assert.match(err.message, new RegExp(`via ProxyJump ${jump.hostAlias}: .*unknown`));
        return true;
      });
    } finally {
      writeFileSync(join(home, '.ssh', 'known_hosts'), `${jump.knownHostsLine()}\n${target.knownHostsLine()}\n`);
    }
    await waitFor('no jump connection to remain', () => jump.connectionCount() === 0);
  });

  test('start_session through ProxyJump reaches the daemon behind the jump host', { timeout: 120_000 }, async () => {
    const h = await startHarness({ home, env: { HOME: home }, ssh: { agentSocket: '' } });
    try {
      const r = await h.call('start_session', { host: 'behind-jump' });
      assert.equal(r.isError, false, JSON.stringify(r.payload));
      const who = parseToolPayload(await h.router.forward({ kind: 'host', host: 'behind-jump' }, 'whoami', {}, toolContext())) as {
        home: string;
      };
      assert.equal(who.home, target.remoteHome);
      assert.equal(jump.connectionCount(), 1);
    } finally {
      await h.close();
    }
    await waitFor('the jump connection to close with the router', () => jump.connectionCount() === 0);
  });

  test('IdentitiesOnly: the agent key is not offered, only the configured identity', { timeout: 60_000 }, async () => {
    const agentSock = join(jump.root, 'agent-io.sock');
    const agent: ChildProcess = spawn('ssh-agent', ['-D', '-a', agentSock], { stdio: ['ignore', 'ignore', 'ignore'] });
    try {
      await waitFor('ssh-agent to listen', () => existsSync(agentSock));
      execFileSync('ssh-add', ['-q', join(home, '.ssh', 'id_ed25519')], {
        env: { ...process.env, SSH_AUTH_SOCK: agentSock },
        stdio: 'ignore',
      });
      const config = (identitiesOnly: boolean) => {
        const path = join(jump.root, `io-${identitiesOnly}`);
        writeFileSync(
          path,
          [
            `Host ${jump.hostAlias}`,
            '  HostName 127.0.0.1',
            `  Port ${jump.port}`,
            `  IdentityFile ${jump.unauthorizedKeyPath}`,
            ...(identitiesOnly ? ['  IdentitiesOnly yes'] : []),
            '',
          ].join('\n'),
        );
        return path;
      };
      const withAgent = await SshConnection.connect(jump.hostAlias, { home, configPath: config(false), agentSocket: agentSock });
      withAgent.close();
      await assert.rejects(
        SshConnection.connect(jump.hostAlias, { home, configPath: config(true), agentSocket: agentSock }),
        (err: unknown) => {
          assert.ok(err instanceof SshError);
          assert.equal(err.phase, 'auth');
          assert.doesNotMatch(err.message, /agent/);
          assert.ok(err.message.includes(jump.unauthorizedKeyPath));
          return true;
        },
      );
    } finally {
      const exited = new Promise((r) => agent.once('exit', r));
      agent.kill('SIGTERM');
      await exited;
    }
  });
});
