// The `lispex` command line, spawned from source: run (INTERACTIVE-OUTPUT-1), check, options,
// exit statuses, and the logical source id (the file name, never its host path).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageVersion } from '../../../src/index.js';
import { binCommand } from '../../helpers/bin.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function lispex(args: string[]): Promise<Ran> {
  const { command, args: binArgs } = binCommand('lispex', args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, binArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('lispex CLI', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lispex-cli-'));
    await writeFile(
      file('values.lspx'),
      '(define (f x) (* x 2))\n(display "hi")\n(f 21)\n(values 1 2)\n(values)\n(list 1 "a" #\\b 1/2 2.5)\n(newline)\n',
    );
    await writeFile(file('warn.lspx'), '(% 7 2)\n(list-rest (list 1 2))\n');
    await writeFile(file('fault.lspx'), '(display "a")\n5\n(car 1)\n(display "never")\n6\n');
    await writeFile(file('syntax.lspx'), '(display "a")\n(car\n');
    await writeFile(file('flood.lspx'), '(define (flood) (display "0123456789abcdef") (flood))\n(display "lost")\n(flood)\n');
    await writeFile(file('input.lspx'), '(apply + input)\n');
    await writeFile(file('bad-utf8.lspx'), Buffer.from([0x28, 0x2b, 0x20, 0x31, 0x20, 0xff, 0x29]));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("run: each form's output, then its values written one per line", async () => {
    const r = await lispex(['run', file('values.lspx')]);
    assert.equal(r.stdout, 'hi42\n1\n2\n(1 "a" #\\b 1/2 2.5)\n\n');
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
  });

  test('run --route vm prints the same', async () => {
    const r = await lispex(['run', '--route', 'vm', file('values.lspx')]);
    assert.equal(r.stdout, 'hi42\n1\n2\n(1 "a" #\\b 1/2 2.5)\n\n');
    assert.equal(r.code, 0);
  });

  test('warnings go to stderr in order with the file name as source id; exit 0', async () => {
    const r = await lispex(['run', file('warn.lspx')]);
    assert.equal(r.stdout, '1\n(2)\n');
    const lines = r.stderr.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split(' ')[0]),
      ['W330', 'W331'],
    );
    assert.match(lines[0]!, /^W330 warn\.lspx:1:1 /);
    assert.ok(!r.stderr.includes(dir), 'no host path in diagnostics');
    assert.equal(r.code, 0);
  });

  test('a runtime fault keeps committed output, prints nothing for the failed form, stops; exit 1', async () => {
    const r = await lispex(['run', file('fault.lspx')]);
    assert.equal(r.stdout, 'a5\n');
    assert.match(r.stderr, /^E310 fault\.lspx:3:1 .*\n$/);
    assert.equal(r.code, 1);
  });

  test('a source fault prints nothing; exit 1', async () => {
    const r = await lispex(['run', file('syntax.lspx')]);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^E100 syntax\.lspx:/);
    assert.equal(r.code, 1);
  });

  test('invalid UTF-8 in the file is E100', async () => {
    const r = await lispex(['run', file('bad-utf8.lspx')]);
    assert.match(r.stderr, /^E100 bad-utf8\.lspx:1:6 /);
    assert.equal(r.code, 1);
  });

  test('a meter exhaustion prints no stdout at all; exit 2', async () => {
    const r = await lispex(['run', file('flood.lspx')]);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trimEnd().split('\n').length, 1);
    assert.equal(r.code, 2);
  });

  test('--input binds input', async () => {
    const r = await lispex(['run', file('input.lspx'), '--input', '(1 2 3 4)']);
    assert.equal(r.stdout, '10\n');
    assert.equal(r.code, 0);
  });

  test("check prints only diagnostics and warnings, with the run's exit status", async () => {
    const clean = await lispex(['check', file('values.lspx')]);
    assert.deepEqual([clean.stdout, clean.stderr, clean.code], ['', '', 0]);
    const fault = await lispex(['check', file('fault.lspx')]);
    assert.equal(fault.stdout, '');
    assert.match(fault.stderr, /^E310 fault\.lspx:3:1 /);
    assert.equal(fault.code, 1);
    const warn = await lispex(['check', file('warn.lspx')]);
    assert.equal(warn.stdout, '');
    assert.match(warn.stderr, /^W330 .*\nW331 /);
  });

  test('--help and --version', async () => {
    const help = await lispex(['--help']);
    assert.match(help.stdout, /lispex run <file>/);
    assert.match(help.stdout, /lispex mcp serve/);
    assert.equal(help.code, 0);
    const version = await lispex(['--version']);
    assert.equal(version.stdout, `${packageVersion()}\n`);
    const serveHelp = await lispex(['mcp', 'serve', '--help']);
    assert.match(serveHelp.stdout, /--topaz-compiler PATH/);
    assert.equal(serveHelp.code, 0);
  });

  test('usage errors name the problem and exit 64', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['run'], /lispex run needs a file/],
      [['run', file('missing.lspx')], /cannot read .*missing\.lspx: ENOENT/],
      [['run', '--route', 'jit', file('values.lspx')], /--route needs tree or vm; got "jit"/],
      [['run', file('values.lspx'), file('warn.lspx')], /takes one file/],
      [['compile', file('values.lspx')], /unknown command "compile"/],
      [['mcp', 'start'], /expected "lispex mcp serve"/],
    ];
    const results = await Promise.all(cases.map(([args]) => lispex(args)));
    results.forEach((r, i) => {
      assert.equal(r.code, 64, `exit of ${cases[i]![0].join(' ')}`);
      assert.match(r.stderr, cases[i]![1]);
      assert.equal(r.stdout, '');
    });
  });
});
