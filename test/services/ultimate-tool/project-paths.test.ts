// A reliability finding: a symlink inside the project was followed out of it — a symbol
// path `outside/passwd` with `outside -> /etc` stored /etc/passwd as evidence and served it. Every
// project path is now resolved with realpath and confined to the project: in the manifest (a
// manifest error naming the field, the path, where it leads and the rule), in the clean build's
// copy, and in the outputs the build leaves.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCleanBuild } from '../../../services/ultimate-tool/builds/build.js';
import { ManifestError, ManifestSchema, loadManifest } from '../../../services/ultimate-tool/project/manifest.js';
import {
  PROJECT_PATH_RULE,
  ProjectPathError,
  projectPathEscape,
  readProjectFile,
} from '../../../services/ultimate-tool/project/project-paths.js';
import { UltimateToolService } from '../../../services/ultimate-tool/index.js';
import { type Harness, exampleProject, startHarness } from './harness.js';

const example = JSON.parse(readFileSync(join(exampleProject, 'ultimate-tool.json'), 'utf8'));

/** A project folder with the example manifest, edited. */
function project(edit: (m: any, dir: string) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'ultimate-paths-'));
  const m = structuredClone(example);
  edit(m, dir);
  writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
  return dir;
}

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

async function manifestRefusal(dir: string): Promise<string> {
  made.push(dir);
  const e = await loadManifest(dir).then(
    () => assert.fail('the manifest was accepted'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ManifestError, `expected a ManifestError, got ${e}`);
  return e.message;
}

describe('project paths stay inside the project (realpath, symlinks included)', () => {
  it('a symlinked directory leading out (outside -> /etc, path outside/passwd) is a manifest error naming the path and the rule', async () => {
    const msg = await manifestRefusal(
      project((m, dir) => {
        symlinkSync('/etc', join(dir, 'outside'));
        m.artifacts[0].symbols[0].path = 'outside/passwd';
      }),
    );
    assert.match(msg, /artifacts\.0\.symbols\.0\.path: "outside\/passwd" resolves to \/etc\/passwd, outside the project/);
    assert.ok(msg.includes(PROJECT_PATH_RULE), msg);
  });

  it('a symlinked file leading out is refused, and so are the REU image and native sources', async () => {
    const msg = await manifestRefusal(
      project((m, dir) => {
        mkdirSync(join(dir, 'build'));
        symlinkSync('/etc/passwd', join(dir, 'build', 'pass.labels'));
        mkdirSync(join(dir, 'native'));
        symlinkSync('/etc/hostname', join(dir, 'native', 'main.c'));
        symlinkSync('/etc/passwd', join(dir, 'image.reu'));
        m.ultimate_reu_image = 'image.reu';
        m.native_programs = [{ name: 'hello', sources: ['native/main.c'] }];
      }),
    );
    assert.match(msg, /artifacts\.0\.symbols\.0\.path: "build\/pass\.labels" resolves to \/etc\/passwd/);
    assert.match(msg, /ultimate_reu_image: "image\.reu" resolves to \/etc\/passwd/);
    assert.match(msg, /native_programs\.0\.sources\.0: "native\/main\.c" resolves to \/etc\/hostname/);
  });

  it('a symlink chain that ends outside is followed to its end', async () => {
    const msg = await manifestRefusal(
      project((m, dir) => {
        symlinkSync('/etc', join(dir, 'hop2'));
        symlinkSync('hop2', join(dir, 'hop1'));
        m.artifacts[0].path = 'hop1/passwd';
      }),
    );
    assert.match(msg, /artifacts\.0\.path: "hop1\/passwd" resolves to \/etc\/passwd/);
  });

  it('a symlink that stays inside the project is fine', async () => {
    const dir = project((m, d) => {
      mkdirSync(join(d, 'out'));
      symlinkSync('out', join(d, 'build'));
      m.artifacts[0].path = 'build/pass.prg';
    });
    made.push(dir);
    const m = await loadManifest(dir);
    assert.equal(m.artifacts[0]!.path, 'build/pass.prg');
  });

  it('".." and absolute paths are refused by the schema and by the resolver', async () => {
    for (const path of ['../outside.prg', 'build/../../x.prg', '/etc/passwd']) {
      const m = structuredClone(example);
      m.artifacts[0].path = path;
      const r = ManifestSchema.safeParse(m);
      assert.equal(r.success, false, path);
      assert.match(r.error!.issues[0]!.message, /relative to the project root without "\.\."/);
    }
    const root = mkdtempSync(join(tmpdir(), 'ultimate-paths-root-'));
    made.push(root);
    assert.equal(await projectPathEscape(root, '../x'), join(root, '..', 'x'));
    assert.equal(await projectPathEscape(root, 'a/../../x'), join(root, '..', 'x'));
    assert.equal(await projectPathEscape(root, '/etc/passwd'), '/etc/passwd');
    assert.equal(await projectPathEscape(root, 'a/b/c'), null, 'a path that does not exist yet leaves nothing');
  });

  it('a file read at job time is confined again (readProjectFile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-paths-read-'));
    made.push(dir);
    writeFileSync(join(dir, 'in.reu'), 'inside');
    symlinkSync('/etc/passwd', join(dir, 'out.reu'));
    assert.equal((await readProjectFile(dir, 'in.reu')).toString(), 'inside');
    await assert.rejects(readProjectFile(dir, 'out.reu'), (e: unknown) => {
      assert.ok(e instanceof ProjectPathError);
      assert.match(e.message, /"out\.reu" resolves to \/etc\/passwd, outside the project/);
      return true;
    });
  });
});

describe('the clean build does not follow a symlink out of the project', { timeout: 60_000 }, () => {
  const buildManifest = (command: string[]) => {
    const m = ManifestSchema.parse(structuredClone(example));
    m.build!.command = command;
    m.artifacts = [
      { name: 'pass', path: 'build/pass.prg', symbols: [{ path: 'build/pass.labels', format: 'acme-vicelabels' }], prebuilt: false },
    ];
    return m;
  };

  it('an output the build leaves as a symlink to /etc/passwd is not read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-paths-build-'));
    made.push(dir);
    const r = await runCleanBuild(
      dir,
      buildManifest(['sh', '-c', 'mkdir -p build && printf x > build/pass.prg && ln -s /etc/passwd build/pass.labels']),
    );
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.match(r.reason, /"build\/pass\.labels" resolves to \/etc\/passwd, outside the build's copy of the project/);
    assert.ok(r.reason.includes(PROJECT_PATH_RULE));
  });

  it('a project holding a symlink that leads out is not copied or built, naming the link', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-paths-copy-'));
    made.push(dir);
    symlinkSync('/etc', join(dir, 'outside'));
    const marker = join(dir, 'ran');
    const r = await runCleanBuild(dir, buildManifest(['sh', '-c', `touch ${marker}`]));
    assert.ok(!r.ok);
    assert.match(r.reason, /"outside" resolves to \/etc, outside the project/);
    assert.throws(() => readFileSync(marker), 'the build command never ran');
  });

  it('a relative symlink inside the project keeps pointing inside the copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-paths-inside-'));
    made.push(dir);
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'pass.labels'), 'al C:0801 .start\n');
    const r = await runCleanBuild(
      dir,
      buildManifest(['sh', '-c', 'mkdir -p build && printf x > build/pass.prg && ln -s ../out/pass.labels build/pass.labels']),
    );
    assert.ok(r.ok, r.ok ? '' : r.reason);
    assert.equal(r.artifacts.get('pass')!.symbols[0]!.bytes.toString(), 'al C:0801 .start\n');
  });
});

describe('the service with such a project', { timeout: 120_000 }, () => {
  const linkOut = (dir: string) => {
    symlinkSync('/etc', join(dir, 'outside'));
    const m = JSON.parse(readFileSync(join(dir, 'ultimate-tool.json'), 'utf8'));
    m.artifacts[0].symbols[0].path = 'outside/passwd';
    writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
  };

  it('does not start, naming the path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-paths-start-'));
    made.push(dir);
    cpSync(exampleProject, dir, { recursive: true, filter: (s) => !s.includes('/build') });
    linkOut(dir);
    await assert.rejects(
      UltimateToolService.start({ projectDir: dir, storeDir: join(dir, 'store'), port: 0, vice: null, ultimate: null }),
      /artifacts\.0\.symbols\.0\.path: "outside\/passwd" resolves to \/etc\/passwd/,
    );
  });

  let h: Harness | undefined;
  after(() => h?.close());

  it('a link made while it runs: POST /v13/jobs answers the manifest error; no run is stored', async () => {
    h = await startHarness();
    linkOut(h.project);
    const r = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'manifest_invalid');
    assert.match(r.body.error.message, /artifacts\.0\.symbols\.0\.path: "outside\/passwd" resolves to \/etc\/passwd/);
    const runs = await h.get('/v13/runs');
    assert.equal(runs.status, 200);
    assert.deepEqual(runs.body.runs, []);
  });
});
