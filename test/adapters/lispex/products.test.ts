// Startup product validation (--topaz-vm, --topaz-compiler, --rust-tools), as a unit.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStartupProducts, StartupOptionError } from '../../../adapters/lispex/index.js';

/** A product stub that answers the startup version handshake. */
const HANDSHAKE_STUB = `#!/bin/sh\necho '{"protocol":"lispex.external-backend-protocol/v1","product":"stub","version":"0"}'\n`;

describe('parseStartupProducts', () => {
  let dir: string;
  let tool: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lispex-products-'));
    tool = join(dir, 'tool');
    // A stub that answers the version handshake (what a product must do at startup).
    await writeFile(tool, HANDSHAKE_STUB);
    await writeFile(join(dir, 'mute'), '#!/bin/sh\nexit 0\n');
    await chmod(join(dir, 'mute'), 0o755);
    await chmod(tool, 0o755);
    await writeFile(join(dir, 'plain'), 'data');
    await chmod(join(dir, 'plain'), 0o644);
    await mkdir(join(dir, 'folder'));
    await symlink(tool, join(dir, 'link'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const refused = (argv: string[], message: RegExp) =>
    assert.throws(
      () => parseStartupProducts(argv),
      (e: unknown) => e instanceof StartupOptionError && message.test(e.message),
    );

  test('no options: no products', () => {
    assert.deepEqual(parseStartupProducts([]), {});
  });

  test('absolute executables are accepted, in either option spelling, and frozen', () => {
    const products = parseStartupProducts(['--topaz-vm', tool, `--topaz-compiler=${tool}`, '--rust-tools', join(dir, 'link')]);
    assert.equal(products.topazVm?.path, tool);
    assert.equal(products.topazCompiler?.path, tool);
    assert.equal(products.rustTools?.path, join(dir, 'link'));
    assert.equal(products.rustTools?.realPath, tool);
    assert.ok(Object.isFrozen(products));
  });

  test('every malformed selection is refused with a message naming the option', () => {
    refused(['--topaz-vm', 'relative/tool'], /--topaz-vm must be an absolute path; got "relative\/tool"/);
    refused(['--topaz-vm', join(dir, 'missing')], /--topaz-vm ".*missing" does not exist/);
    refused(['--topaz-vm', join(dir, 'plain')], /--topaz-vm ".*plain" is not executable/);
    refused(['--topaz-vm', join(dir, 'folder')], /--topaz-vm ".*folder" is not a regular file/);
    refused(['--topaz-vm'], /--topaz-vm needs an absolute path/);
    refused(['--topaz-vm', '--rust-tools', tool], /--topaz-vm needs an absolute path/);
    refused(['--topaz-vm', tool, '--topaz-vm', tool], /given more than once/);
    refused(['--topaz-vm', join(dir, 'mute')], /--topaz-vm ".*mute" answered something that is not JSON|not JSON/);
    refused(['--rust-tools', tool], /--rust-tools must appear together with --topaz-compiler/);
    refused(['--topaz-compiler', tool], /--topaz-compiler must appear together with --rust-tools/);
    refused(['--path', tool], /unknown option "--path"/);
    refused([tool], /unknown option/);
  });
});
