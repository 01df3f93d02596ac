// What `npm pack` would publish, file by file: only what a user runs or reads, nothing of this
// machine. The list comes from `npm pack --dry-run --json` (so `files` in package.json is what is
// tested); each listed file is then read from the checkout. Needs dist/ (npm test builds it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { repoRoot } from '../helpers/bin.js';

/** Every shipped file must match one of these: the built code, and the assets it reads at run time. */
const ALLOWED: readonly RegExp[] = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^docs\/.+\.md$/,
  /^dist\/.+\.(js|cjs|d\.ts|d\.cts)$/,
  /^dist\/dashboard\/.+\.(js|css|html)$/,
  // The OCaml agent, compiled on first use with the user's OCaml.
  /^engines\/ocaml\/agent\/[\w-]+\.(ml|mli|c)$/,
  /^engines\/ocaml\/agent\/dune(-project)?$/,
  // The Rust products' crate sources, built by `lispex build-products` with the user's cargo.
  /^products\/topaz-(vm|aot)\/Cargo\.(toml|lock)$/,
  /^products\/topaz-(vm|aot)\/src\/.+\.rs$/,
  /^services\/ultimate-tool\/manifest\.schema\.json$/,
  /^examples\/c64-project\//,
  /^examples\/riscv\/[\w-]+\.(c|S|h)$/,
];

/** Never shipped, whatever `files` says: tests and their fixtures, build output, source maps. */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/(^|\/)test(s)?\//, 'a test or test fixture'],
  [/^dist\/products\//, 'a product built on this machine (users build theirs: lispex build-products)'],
  [/(^|\/)target\//, "cargo's build folder"],
  [/\.map$/, 'a source map'],
  [/^examples\/c64-project\/build\//, "the example's build output"],
  [/(^|\/)(RUSTC|\.DS_Store|node_modules)(\/|$)/, 'a machine-specific file'],
];

let files: string[] = [];

before(() => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' });
  files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path).sort();
});

test('the tarball lists the built entry points, the agent source and the product crates', () => {
  for (const f of [
    'package.json',
    'dist/index.js',
    'dist/index.d.ts',
    'engines/ocaml/agent/agent_core.ml',
    'products/topaz-vm/Cargo.toml',
  ]) {
    assert.ok(files.includes(f), `${f} is not in the tarball`);
  }
  assert.ok(
    files.some((f) => f.startsWith('products/topaz-aot/src/')),
    'the topaz-aot crate sources are not in the tarball',
  );
});

test('every file in the tarball is one we mean to ship, and none is forbidden', () => {
  const problems: string[] = [];
  for (const f of files) {
    for (const [pattern, what] of FORBIDDEN) if (pattern.test(f)) problems.push(`${f}: ${what}`);
    if (!ALLOWED.some((pattern) => pattern.test(f))) problems.push(`${f}: not on the list of shipped kinds of file`);
  }
  assert.deepEqual(problems, []);
});

test('no file in the tarball is an executable of this machine or names one of its folders', () => {
  // The checkout and the home folder of the machine that packs: neither exists on a user's.
  const machinePaths = [repoRoot, homedir(), '/work/'].filter((p) => p.length > 1);
  const problems: string[] = [];
  for (const f of files) {
    const bytes = readFileSync(join(repoRoot, f));
    const magic = bytes.subarray(0, 4).toString('latin1');
    if (magic === '\x7fELF' || magic === '\xcf\xfa\xed\xfe' || magic.startsWith('MZ')) problems.push(`${f}: a native executable`);
    const text = bytes.toString('utf8');
    for (const p of machinePaths) if (text.includes(p)) problems.push(`${f}: contains the build machine's path ${p}`);
  }
  assert.deepEqual(problems, []);
});

test('no @types package is a runtime dependency unless the published declarations import its module', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const declarations = files.filter((f) => /\.d\.c?ts$/.test(f)).map((f) => readFileSync(join(repoRoot, f), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies).filter((d) => d.startsWith('@types/'))) {
    const module = dep.slice('@types/'.length).replace(/^(.+)__(.+)$/, '@$1/$2');
    const imported = declarations.some((d) => d.includes(`from '${module}'`) || d.includes(`from "${module}"`));
    assert.ok(imported, `${dep} is a runtime dependency but no published declaration imports ${module}: make it a devDependency`);
  }
});

test('every module the published declarations import is a dependency that brings its types', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]);
  const problems: string[] = [];
  for (const f of files.filter((name) => /\.d\.c?ts$/.test(name))) {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    for (const m of text.matchAll(/(?:from|import\()\s*['"]([^'"./][^'"]*)['"]/g)) {
      const specifier = m[1]!;
      if (specifier.startsWith('node:')) continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      if (!declared.has(name)) {
        problems.push(`${f} imports ${specifier}, which is not a dependency`);
        continue;
      }
      const own = JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, unknown>;
      const typesPackage = `@types/${name.replace(/^@(.+)\/(.+)$/, '$1__$2')}`;
      if (own.types === undefined && own.typings === undefined && !declared.has(typesPackage)) {
        problems.push(`${f} imports ${specifier}, whose types (${typesPackage}) a consumer would not get`);
      }
    }
  }
  assert.deepEqual([...new Set(problems)], []);
});

test("no runtime dependency pins an @types/node other than the consumer's own", () => {
  // npm hoists a pinned @types/node (e.g. @types/ssh2's ^18) to the consumer's top level when the
  // consumer has none yet, and then Node 20 code (util.styleText, import.meta.dirname) stops
  // type-checking. Only "*" leaves the choice to the consumer.
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; dependencies?: Record<string, string> }>;
  };
  const pins: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev || entry.devOptional) continue;
    const range = entry.dependencies?.['@types/node'];
    if (range !== undefined && range !== '*') pins.push(`${path} wants @types/node ${range}`);
  }
  assert.deepEqual(pins, []);
});
