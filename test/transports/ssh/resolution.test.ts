// Pure parts of the SSH layer: ~/.ssh/config resolution (through the ssh-config package) and
// known_hosts matching (patterns, negation, hashed names, ports), without a server.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { resolveSshHost } from '../../../transports/ssh/config.js';
import { KnownHosts, hostPatternsMatch, knownHostsName } from '../../../transports/ssh/known-hosts.js';
import { tempDir } from '../../adapters/topup/routing/harness.js';

describe('ssh config resolution', () => {
  test('alias, port, user, identity files with ~ and %-tokens, first value wins', () => {
    const dir = tempDir('topup-sshcfg-');
    try {
      mkdirSync(join(dir.path, '.ssh'));
      writeFileSync(join(dir.path, '.ssh', 'id_custom'), 'x');
      writeFileSync(
        join(dir.path, '.ssh', 'config'),
        [
          'Host build*',
          '  HostName %h.example.org',
          '  Port 2200',
          '  User alice',
          '  IdentityFile ~/.ssh/id_%r',
          '  IdentitiesOnly yes',
          '',
          'Host *',
          '  User bob',
          '  Port 22',
          '  UserKnownHostsFile ~/kh1 ~/kh2',
          '',
        ].join('\n'),
      );
      const h = resolveSshHost('build1', { home: dir.path });
      assert.equal(h.hostname, 'build1.example.org');
      assert.equal(h.port, 2200);
      assert.equal(h.user, 'alice');
      assert.deepEqual(h.identityFiles, [join(dir.path, '.ssh', 'id_alice')]);
      assert.equal(h.identitiesOnly, true);
      assert.deepEqual(h.userKnownHostsFiles, [join(dir.path, 'kh1'), join(dir.path, 'kh2')]);

      const other = resolveSshHost('plain', { home: dir.path });
      assert.equal(other.hostname, 'plain');
      assert.equal(other.user, 'bob');
      assert.equal(other.port, 22);
      // No IdentityFile configured: OpenSSH's default names that exist (none here).
      assert.deepEqual(other.identityFiles, []);
    } finally {
      dir.remove();
    }
  });

  test('a bad Port is a clear error', () => {
    const dir = tempDir('topup-sshcfg-');
    try {
      mkdirSync(join(dir.path, '.ssh'));
      writeFileSync(join(dir.path, '.ssh', 'config'), 'Host x\n  Port many\n');
      assert.throws(() => resolveSshHost('x', { home: dir.path }), /Port "many"; expected a number/);
    } finally {
      dir.remove();
    }
  });
});

describe('known_hosts matching', () => {
  test('lookup names follow OpenSSH ([host]:port off port 22)', () => {
    assert.equal(knownHostsName('Example.org', 22), 'example.org');
    assert.equal(knownHostsName('127.0.0.1', 2222), '[127.0.0.1]:2222');
    assert.equal(knownHostsName('127.0.0.1', 2222, 'alias'), 'alias');
  });

  test('wildcards and negation', () => {
    assert.equal(hostPatternsMatch('*.example.org,!bad.example.org', 'good.example.org'), true);
    assert.equal(hostPatternsMatch('*.example.org,!bad.example.org', 'bad.example.org'), false);
    assert.equal(hostPatternsMatch('host?', 'host1'), true);
    assert.equal(hostPatternsMatch('host?', 'host12'), false);
  });

  test('hashed names match only the hashed host', () => {
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('[10.0.0.1]:2222').digest();
    const field = `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
    assert.equal(hostPatternsMatch(field, '[10.0.0.1]:2222'), true);
    assert.equal(hostPatternsMatch(field, '10.0.0.1'), false);
  });

  test('verify: known, changed, unknown, revoked', () => {
    const dir = tempDir('topup-kh-');
    try {
      const blob = (type: string, body: Buffer) => {
        const t = Buffer.from(type);
        const len = Buffer.alloc(4);
        len.writeUInt32BE(t.length);
        return Buffer.concat([len, t, body]);
      };
      const k1 = blob('ssh-ed25519', randomBytes(36));
      const k2 = blob('ssh-ed25519', randomBytes(36));
      const k3 = blob('ssh-ed25519', randomBytes(36));
      const file = join(dir.path, 'known_hosts');
      writeFileSync(
        file,
        [`# comment`, `a.example ssh-ed25519 ${k1.toString('base64')}`, `@revoked * ssh-ed25519 ${k3.toString('base64')}`, ''].join('\n'),
      );
      const kh = new KnownHosts([file, join(dir.path, 'missing')]);
      assert.deepEqual(kh.verify('a.example', k1), { ok: true, file, line: 2 });
      const changed = kh.verify('a.example', k2);
      assert.equal(changed.ok, false);
      assert.equal(!changed.ok && changed.reason, 'changed');
      const unknown = kh.verify('b.example', k2);
      assert.equal(!unknown.ok && unknown.reason, 'unknown');
      const revoked = kh.verify('a.example', k3);
      assert.equal(!revoked.ok && revoked.reason, 'revoked');
    } finally {
      dir.remove();
    }
  });
});
