// `ultimate-tool store backup|restore|check`: the store's maintenance commands
// (store/store-maintenance.ts). Each prints one JSON report on stdout; errors go to stderr.
import { resolve } from 'node:path';
import { EXIT_USAGE, UsageError, packageVersion } from '../../common/index.js';
import { StoreLockedError } from './store/store-lock.js';
import { StoreMaintenanceError, backupStore, checkStore, restoreStore } from './store/store-maintenance.js';

export const STORE_USAGE = `usage: ultimate-tool store backup  --store DIR --to FILE
       ultimate-tool store restore --store DIR --from FILE
       ultimate-tool store check   --store DIR

The service store's database (DIR/service.sqlite3: runs, jobs, probes) kept safe:
  backup   SQLite's online backup into FILE (a new file); safe while the service runs. The evidence
           under DIR/runs/ is immutable once registered: copy that folder beside the backup.
  restore  makes FILE (a backup) the store's database; refused while a service uses the store.
           The database it replaces is moved aside (DIR/service.sqlite3.replaced-TIME), never deleted;
           evidence folders the backup does not register are moved to DIR/orphaned/ at the next start.
  check    says what is wrong without changing anything (exit 0: nothing, 1: problems found):
           the database's integrity, schema and age, registered evidence that is missing or damaged,
           evidence folders no run registers.`;

export async function runStoreCli(argv: string[]): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(`${STORE_USAGE}\n`);
      return command === undefined ? EXIT_USAGE : 0;
    }
    if (command === '--version' || command === '-V') {
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    const flags = parseFlags(rest);
    const store = flags.get('--store');
    if (!store) throw new UsageError(`store ${command} needs --store DIR`);
    const dir = resolve(store);
    let report: unknown;
    let ok = true;
    if (command === 'backup') {
      const to = flags.get('--to');
      if (!to) throw new UsageError('store backup needs --to FILE (a new file)');
      report = await backupStore(dir, resolve(to));
    } else if (command === 'restore') {
      const from = flags.get('--from');
      if (!from) throw new UsageError('store restore needs --from FILE (a backup made by store backup)');
      report = await restoreStore(dir, resolve(from));
    } else if (command === 'check') {
      const r = checkStore(dir);
      report = r;
      ok = r.ok;
    } else throw new UsageError(`unknown store command ${JSON.stringify(command)}; expected backup, restore or check`);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return ok ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ultimate-tool store: ${e.message}\n${STORE_USAGE}\n`);
      return e.exitCode;
    }
    if (e instanceof StoreMaintenanceError || e instanceof StoreLockedError) {
      process.stderr.write(`ultimate-tool store: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

function parseFlags(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (!['--store', '--to', '--from'].includes(flag)) throw new UsageError(`unknown option ${JSON.stringify(a)}`);
    const v = inline ?? args[++i];
    if (!v) throw new UsageError(`${flag} expects a value`);
    out.set(flag, v);
  }
  return out;
}
