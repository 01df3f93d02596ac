// A fresh consumer project with the packed tarball installed, as a user who runs
// `npm install ./mcp-engines-X.tgz` gets it: the package is extracted from the real `npm pack`
// output (so `files` and `exports` are what is tested), and its dependencies are linked from this
// checkout's node_modules (so the test needs no network).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/bin.js';

export interface ConsumerProject {
  dir: string;
  remove(): void;
}

export function createConsumerProject(): ConsumerProject {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-engines-consumer-'));
  const packs = join(dir, 'packs');
  mkdirSync(packs);
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], { cwd: repoRoot, encoding: 'utf8' });
  const tarball = join(packs, (JSON.parse(out) as { filename: string }[])[0]?.filename ?? '');
  const modules = join(dir, 'node_modules');
  const target = join(modules, 'mcp-engines');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', target, '--strip-components=1']);
  const source = join(repoRoot, 'node_modules');
  // Type packages as a real install has them: the consumer's own Node 20 types and the @types
  // packages that are our runtime dependencies, none of our devDependencies' (which would hide a
  // missing dependency, or bring another @types/node).
  const runtime = Object.keys((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: object }).dependencies);
  const typesWanted = (sub: string): boolean => sub === 'node' || runtime.includes(`@types/${sub}`);
  for (const name of readdirSync(source)) {
    if (name === '.bin' || name === '.package-lock.json' || name === 'mcp-engines') continue;
    if (name.startsWith('@')) {
      mkdirSync(join(modules, name), { recursive: true });
      for (const sub of readdirSync(join(source, name))) {
        if (name === '@types' && !typesWanted(sub)) continue;
        symlinkSync(join(source, name, sub), join(modules, name, sub));
      }
    } else {
      symlinkSync(join(source, name), join(modules, name));
    }
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['*.mts', '*.cts', '*.ts'],
      },
      null,
      2,
    ),
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The ```ts blocks of a Markdown file that follow a `<!-- snippet: NAME -->` marker, by name. */
export function markedSnippets(markdown: string): Map<string, string> {
  const snippets = new Map<string, string>();
  const re = /<!-- snippet: ([\w-]+) -->\s*```ts\n([\s\S]*?)```/g;
  for (const m of markdown.matchAll(re)) {
    if (m[1] && m[2]) snippets.set(m[1], m[2]);
  }
  return snippets;
}
