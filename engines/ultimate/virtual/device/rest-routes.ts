// The virtual device's REST route table, modelled on the firmware's API_CALL table
// (software/api/route_*.cc): a call is identified by method + route + command; an unknown one gets a
// bare 404 with no body. Query parameters are checked against the call's declared list first
// ("Function <cmd> does not have parameter <p>" / "... requires parameter <p>", 400), then the
// handler validates values the way the firmware does — including parsing numbers like C's strtol,
// so a malformed address gets the firmware's own answer rather than a friendlier one.
import type { MachineSeam } from '../c64/machine-seam.js';
import type { MachineClock } from '../c64/clock.js';
import type { VirtualFs } from './virtual-fs.js';
import { FsError } from './virtual-fs.js';
import type { ConfigStore } from './config-store.js';
import { parseDestination } from './debug-streamer.js';
import { RUN_UPDATE_COMMAND } from '../../riscv-apps/run-update-trigger.js';
import type { UltimateFamily } from '../../product.js';
import { wildcardMatch } from './config-store.js';
import { strtol } from './strtol.js';
import { formatD64, formatD71, formatD81, formatDnp } from './disk-image.js';
import { INPUT_CAPABILITY_ERROR, INPUT_JSON_BODY_MAX, applyInputBatch, inputSnapshot, parseInputBatch } from './input-api.js';

export interface DriveState {
  enabled: boolean;
  type: string;
  image?: string;
  mode?: string;
  /** A ROM loaded with `load_rom` (path on the device); the type's default ROM otherwise. */
  rom?: string;
}

/** What the routes need from the virtual device. */
export interface RestDevice {
  /** Which firmware family the device plays (decides the U64-only calls). */
  readonly family?: UltimateFamily;
  /** Which firmware version it plays (decides the 3.15-only calls; default 3.15). */
  readonly firmware?: '3.14' | '3.15';
  readonly machine: MachineSeam;
  readonly clock: MachineClock;
  readonly fs: VirtualFs;
  readonly config: ConfigStore;
  readonly drives: Map<string, DriveState>;
  identity(): Record<string, unknown>;
  reset(): void;
  reboot(): void;
  powerOff(): void;
  /** A PRG through the boot cartridge: reset, load, then RUN or READY; the machine runs afterwards (VirtualUltimate.bootLoad). */
  bootLoad(bytes: Uint8Array, then: 'run' | 'none'): void;
  startDebugStream(dest: { host: string; port: number }): Promise<void>;
  stopDebugStream(): void;
  /** Elite II only (docs/ultimate/NATIVE.md): Run Update on a stored .UE2 file; see engines/ultimate/riscv-apps/run-update-trigger.ts. */
  runUpdateFile?(path: string): Answer;
}

export type Answer =
  /** `afterSend` runs once the answer has been handed to the socket (Run Update goes native then). */
  { status: number; json: Record<string, unknown>; afterSend?: () => void } | { status: number; binary: Uint8Array };

export interface CallInput {
  args: Map<string, string>;
  /** The path part between the route and the command (`a` in `/v1/drives/a:mount`). */
  path: string;
  body?: Uint8Array;
  /** The request's Content-Type header ('' when absent). */
  contentType?: string;
  /** The file name a multipart upload's Content-Disposition gave (absent for a raw body). */
  uploadName?: string;
}

interface Call {
  method: 'GET' | 'PUT' | 'POST';
  route: string;
  /** '' for calls without a `:command` (GET /v1/version, /v1/configs/...). */
  command: string;
  params: Array<{ name: string; required: boolean }>;
  /** True for POST calls that take the request body (an empty body gets 412). */
  body?: boolean;
  /**
   * True for a POST whose body the handler judges itself (the input API's own JSON writer): an
   * empty body is the handler's to answer and a multipart body is not unpacked.
   */
  jsonBody?: boolean;
  /** True when the call takes a sub-path (/v1/drives/<x>:mount, /v1/configs/<cat>/<item>). */
  subPath?: boolean;
  /** When set, the call answers only this exact sub-path (/v1/streams/debug:start). */
  pathMatch?: string;
  /** Only the U64 firmware has this call (route_machine.cc `#ifdef U64`); a U2+ answers a bare 404. */
  u64Only?: boolean;
  /** New in firmware 3.15; 3.14 answers a bare 404. */
  since315?: boolean;
  /** Modelled only for this family (the input API: 501 on the U2+, the real thing on the U64). */
  familyOnly?: UltimateFamily;
  handle(dev: RestDevice, input: CallInput): Answer | Promise<Answer>;
}

const ok = (extra: Record<string, unknown> = {}): Answer => ({ status: 200, json: { ...extra, errors: [] } });
const fail = (status: number, ...errors: string[]): Answer => ({ status, json: { errors } });

export { strtol };

function hexNibble(c: string | undefined): number {
  if (c === undefined) return 0xff;
  const v = parseInt(c, 16);
  return /^[0-9a-fA-F]$/.test(c) ? v : 0xff;
}

function loadFile(dev: RestDevice, path: string | undefined): Uint8Array | Answer {
  try {
    return dev.fs.read(dev.fs.resolve('/', path ?? ''));
  } catch (e) {
    if (e instanceof FsError) return fail(404, 'Cannot open file');
    throw e;
  }
}

function machineCommand(command: string, act: (d: RestDevice) => void): Call {
  return {
    method: 'PUT',
    route: 'machine',
    command,
    params: [],
    handle: (d) => {
      act(d);
      return ok();
    },
  };
}

function writeMem(dev: RestDevice, address: number, data: Uint8Array): Answer {
  const h = (n: number) => n.toString(16).padStart(4, '0');
  dev.machine.writeMem(address, data);
  return ok({ address: `${h(address)}-${h(address + data.length - 1)}` });
}

const CALLS: Call[] = [
  { method: 'GET', route: 'version', command: '', params: [], handle: () => ok({ version: '0.1' }) },
  { method: 'GET', route: 'info', command: '', params: [], handle: (d) => ok(d.identity()) },

  machineCommand('reset', (d) => d.reset()),
  machineCommand('reboot', (d) => d.reboot()),
  machineCommand('pause', (d) => d.clock.hold('rest-pause')),
  machineCommand('resume', (d) => d.clock.release('rest-pause')),
  machineCommand('poweroff', (d) => d.powerOff()),
  // The virtual device has no menu; the button freezes/unfreezes the machine as opening and
  // closing the menu does on hardware.
  machineCommand('menu_button', (d) => (d.clock.isHeld('menu') ? d.clock.release('menu') : d.clock.hold('menu'))),
  {
    method: 'PUT',
    route: 'machine',
    command: 'writemem',
    params: [
      { name: 'address', required: true },
      { name: 'data', required: true },
    ],
    handle(dev, { args }) {
      const address = strtol(args.get('address'), 16);
      if (address < 0 || address > 65535) return fail(400, 'Invalid address');
      const data = args.get('data') ?? '';
      const len = data.length >> 1;
      if (len > 128) return fail(400, 'Maximum length of 128 bytes exceeded. Consider using POST method with attachment.');
      if (len < 1) return fail(400, 'Use this API call to write at least one byte!');
      if (address + len > 65536) return fail(400, 'Memory write exceeds location $FFFF');
      const buf = new Uint8Array(len);
      for (let i = 0; i < len; i++) {
        const b1 = hexNibble(data[2 * i]);
        if (b1 === 0xff) return fail(400, `Invalid char '${data[2 * i]}' at position ${2 * i}.`);
        const b2 = hexNibble(data[2 * i + 1]);
        if (b2 === 0xff) return fail(400, `Invalid char '${data[2 * i + 1]}' at position ${2 * i + 1}.`);
        buf[i] = (b1 << 4) | b2;
      }
      return writeMem(dev, address, buf);
    },
  },
  {
    method: 'POST',
    route: 'machine',
    command: 'writemem',
    params: [{ name: 'address', required: true }],
    body: true,
    handle(dev, { args, body }) {
      const address = strtol(args.get('address'), 16);
      if (address < 0 || address > 65535) return fail(400, 'Invalid address');
      const data = body!;
      if (address + data.length > 65536) return fail(400, 'Memory write exceeds location $FFFF');
      return writeMem(dev, address, data);
    },
  },
  {
    method: 'GET',
    route: 'machine',
    command: 'readmem',
    params: [
      { name: 'address', required: true },
      { name: 'length', required: false },
    ],
    handle(dev, { args }) {
      const address = strtol(args.get('address'), 16);
      if (address < 0 || address > 65535) return fail(400, 'Invalid address');
      // strtol(…, 0) as the firmware: 0x10 is 16, 010 is 8.
      const length = args.has('length') ? strtol(args.get('length'), 0) : 256;
      if (length < 0 || length > 65536) return fail(400, 'Invalid length');
      if (address + length > 65536) return fail(400, 'Memory read exceeds location $FFFF');
      return { status: 200, binary: dev.machine.readMem(address, length) };
    },
  },
  {
    method: 'GET',
    route: 'machine',
    command: 'debugreg',
    u64Only: true,
    params: [],
    handle: (d) => ok({ value: d.machine.debugRegister.toString(16).toUpperCase().padStart(2, '0') }),
  },
  {
    method: 'PUT',
    route: 'machine',
    command: 'debugreg',
    u64Only: true,
    params: [{ name: 'value', required: true }],
    handle(d, { args }) {
      d.machine.debugRegister = strtol(args.get('value'), 16) & 0xff;
      return ok({ value: d.machine.debugRegister.toString(16).toUpperCase().padStart(2, '0') });
    },
  },

  // Bus timing measurement needs an FPGA with CAPAB_BUS_MEASURE; the virtual device has no
  // cartridge bus to sample, so it answers as a firmware on such an FPGA does.
  {
    method: 'GET',
    route: 'machine',
    command: 'measure',
    params: [],
    handle: () => fail(501, 'The current FPGA build does not support timing measurement of the cartridge bus.'),
  },
  // 3.15: the menu's 40×25 screen (characters then colours) while a menu is shown. The virtual
  // device draws no menu, so no user interface has a screen to copy: the firmware's answer for that.
  {
    method: 'GET',
    route: 'machine',
    command: 'menu_screen',
    params: [],
    since315: true,
    handle: () => fail(404, 'Menu screen unavailable.'),
  },

  // 3.15 input API (route_input.cc): keyboard and joystick injection exist on U64-class hardware
  // only; an Ultimate-II+ answers 501 with this text. The virtual U64 drives its keyboard matrix
  // and joystick lines through CIA 1 (input-api.ts, input-lines.ts).
  ...(['GET', 'POST'] as const).map(
    (method): Call => ({
      method,
      route: 'machine',
      command: 'input',
      params: [],
      since315: true,
      familyOnly: 'u2plus',
      handle: () => fail(501, INPUT_CAPABILITY_ERROR),
    }),
  ),
  {
    method: 'GET',
    route: 'machine',
    command: 'input',
    params: [],
    since315: true,
    familyOnly: 'u64',
    handle: (d) => (d.machine.inputLines ? ok(inputSnapshot(d.machine.inputLines)) : fail(501, INPUT_CAPABILITY_ERROR)),
  },
  {
    method: 'POST',
    route: 'machine',
    command: 'input',
    params: [],
    since315: true,
    familyOnly: 'u64',
    jsonBody: true,
    handle(d, { body, contentType }) {
      const lines = d.machine.inputLines;
      if (!lines) return fail(501, INPUT_CAPABILITY_ERROR);
      if (!/^application\/json$/i.test(contentType ?? '')) return fail(400, "Content type should be 'application/json'.");
      if (!body || body.length === 0) return fail(400, 'Request body is required.');
      if (body.length > INPUT_JSON_BODY_MAX) return fail(400, 'JSON body is too large.');
      const parsed = parseInputBatch(new TextDecoder().decode(body));
      if ('error' in parsed) return fail(400, parsed.error);
      return ok(applyInputBatch(lines, parsed.events));
    },
  },

  // Runners: PUT names a file on the device, POST carries it.
  ...(['load_prg', 'run_prg'] as const).flatMap((command): Call[] => {
    // Both runners reset the machine and load through the boot cartridge; the firmware answers
    // 200 for any file it could open, cutting a PRG at $FFFF and loading nothing from one shorter
    // than 3 bytes (c64_subsys.cc `load_file_dma`, whose result is discarded).
    const start = (d: RestDevice, bytes: Uint8Array): Answer => {
      d.bootLoad(bytes, command === 'run_prg' ? 'run' : 'none');
      return ok();
    };
    return [
      {
        method: 'PUT',
        route: 'runners',
        command,
        params: [{ name: 'file', required: true }],
        handle(d, { args }) {
          const f = loadFile(d, args.get('file'));
          return f instanceof Uint8Array ? start(d, f) : f;
        },
      },
      { method: 'POST', route: 'runners', command, params: [], body: true, handle: (d, { body }) => start(d, body!) },
    ];
  }),
  ...(['run_crt', 'sidplay', 'modplay'] as const).flatMap((command): Call[] => {
    // The virtual machine has no cartridge port, SID player or sampler: say so with 501.
    const what = command === 'run_crt' ? 'Cartridges are' : command === 'sidplay' ? 'The SID player is' : 'Sampler module is';
    const refuse = (): Answer => fail(501, `${what} not emulated by the virtual device`);
    const params = command === 'sidplay' ? [{ name: 'songnr', required: false }] : [];
    return [
      {
        method: 'PUT',
        route: 'runners',
        command,
        params: [{ name: 'file', required: true }, ...params],
        handle(d, { args }) {
          const f = loadFile(d, args.get('file'));
          return f instanceof Uint8Array ? refuse() : f;
        },
      },
      { method: 'POST', route: 'runners', command, params, body: true, handle: refuse },
    ];
  }),

  // Run Update (virtual-device design, not a firmware route; docs/ultimate/NATIVE.md): the trigger named in
  // engines/ultimate/riscv-apps/run-update-trigger.ts. Only an Elite II (product u64-elite2) has it.
  {
    method: 'PUT',
    route: 'runners',
    command: RUN_UPDATE_COMMAND,
    params: [{ name: 'file', required: true }],
    handle(d, { args }) {
      if (!d.runUpdateFile) return fail(404, 'Run Update needs an Ultimate 64 Elite II; this virtual device is an Ultimate 64');
      return d.runUpdateFile(args.get('file') ?? '');
    },
  },

  // Drives: state only (the virtual machine has no serial bus; mounting records the image). Drive
  // names are matched case-insensitively (route_drives.h): `a`, `b` and `softiec`. The SoftIEC
  // subsystem answers every 1541 command with success and does nothing (IecDrive::executeCommand
  // only knows its own menu codes), so the virtual one does the same.
  {
    method: 'GET',
    route: 'drives',
    command: '',
    params: [],
    handle: (d) =>
      ok({
        // The firmware's keys (route_drives.cc): bus id 8 for A, 9 for B; then the IEC slaves.
        drives: [
          ...[...d.drives].map(([id, s], i) => {
            const image = s.image ?? '';
            const slash = image.lastIndexOf('/');
            return {
              [id]: {
                enabled: s.enabled,
                bus_id: 8 + i,
                type: s.type,
                rom: s.rom ?? `${s.type}.rom`,
                image_file: slash >= 0 ? image.slice(slash + 1) : image,
                image_path: slash > 0 ? image.slice(0, slash) : '',
              },
            };
          }),
          SOFTIEC_INFO,
        ],
      }),
  },
  {
    method: 'PUT',
    route: 'drives',
    command: 'mount',
    subPath: true,
    params: [
      { name: 'image', required: true },
      { name: 'type', required: false },
      { name: 'mode', required: false },
    ],
    handle: (d, { args, path }) => mountImage(d, path, args.get('image')!, args.get('type'), args.get('mode')),
  },
  // POST mount (route_drives.cc): the attachment is stored as a temporary upload first, then
  // mounted as PUT mounts a path — the type comes from the stored name's extension unless `type`
  // says otherwise, so a raw body (stored as `tempNNNN`, no extension) needs `type`.
  {
    method: 'POST',
    route: 'drives',
    command: 'mount',
    subPath: true,
    body: true,
    params: [
      { name: 'type', required: false },
      { name: 'mode', required: false },
    ],
    handle: (d, { args, path, body, uploadName }) =>
      mountImage(d, path, storeUpload(d, body!, uploadName), args.get('type'), args.get('mode')),
  },
  ...(['reset', 'remove', 'on', 'off', 'unlink'] as const).map(
    (command): Call => ({
      method: 'PUT',
      route: 'drives',
      command,
      subPath: true,
      params: [],
      handle(d, { path }) {
        const drive = findDrive(d, path);
        if (!drive) return fail(400, `Invalid Drive '${decodeURIComponent(path)}'`);
        if (drive === 'softiec') return ok();
        const s = drive.state;
        if (command === 'remove') {
          s.image = undefined;
          s.mode = undefined;
        }
        if (command === 'unlink' && s.image !== undefined) s.mode = 'unlinked';
        if (command === 'on') s.enabled = true;
        if (command === 'off') s.enabled = false;
        return ok();
      },
    }),
  ),
  {
    method: 'PUT',
    route: 'drives',
    command: 'load_rom',
    subPath: true,
    params: [{ name: 'file', required: true }],
    handle: (d, { args, path }) => loadRom(d, path, args.get('file')!),
  },
  // POST load_rom: the attachment is stored as a temporary upload and loaded from there.
  {
    method: 'POST',
    route: 'drives',
    command: 'load_rom',
    subPath: true,
    body: true,
    params: [],
    handle: (d, { path, body, uploadName }) => loadRom(d, path, storeUpload(d, body!, uploadName)),
  },
  {
    method: 'PUT',
    route: 'drives',
    command: 'set_mode',
    subPath: true,
    params: [{ name: 'mode', required: true }],
    handle(d, { args, path }) {
      const drive = findDrive(d, path);
      if (!drive) return fail(400, `Invalid Drive '${decodeURIComponent(path)}'`);
      const mode = args.get('mode')!;
      if (!['1541', '1571', '1581'].includes(mode)) return fail(400, `Invalid Drive Type '${mode}'`);
      if (drive !== 'softiec') drive.state.type = mode;
      return ok({ mode });
    },
  },

  // Configuration.
  {
    method: 'GET',
    route: 'configs',
    command: '',
    subPath: true,
    params: [],
    handle(d, { path }) {
      if (!path) return ok({ categories: d.config.categories() });
      const [cat, item, ...rest] = path.split('/').map(decodeURIComponent);
      if (rest.length) return fail(404, 'Too many path components');
      // Names are case-insensitive wildcards (`*`, `?`); no match is a 200 without the category.
      const out: Record<string, unknown> = {};
      for (const [name, items] of d.config.matchCategories(cat!)) {
        const matched = [...items].filter(([k]) => item === undefined || wildcardMatch(item, k));
        if (item !== undefined && matched.length === 0) continue;
        out[name] = Object.fromEntries(matched.map(([k, v]) => [k, item === undefined ? v.current : d.config.describe(v)]));
      }
      return ok(out);
    },
  },
  {
    method: 'PUT',
    route: 'configs',
    command: '',
    subPath: true,
    params: [{ name: 'value', required: true }],
    handle(d, { path, args }) {
      const [cat, item, ...rest] = path.split('/').map(decodeURIComponent);
      if (!cat || !item || rest.length) return fail(400, 'Expected /v1/configs/<category>/<item>');
      if (!d.config.category(cat)) return fail(404, `There is no config category that matches '${cat}'`);
      const err = d.config.set(cat, item, args.get('value')!);
      return err ? fail(err.startsWith('Item') ? 404 : 400, err) : ok();
    },
  },
  {
    method: 'POST',
    route: 'configs',
    command: '',
    params: [],
    body: true,
    handle(d, { body, contentType }) {
      // The firmware refuses a configs POST that does not say it is JSON.
      if (!/^application\/json\b/i.test(contentType ?? '')) return fail(400, 'Content-Type must be application/json');
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(body));
      } catch {
        return fail(400, 'Body is not valid JSON');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return fail(400, 'Expected a JSON object of categories');
      const errors: string[] = [];
      for (const [cat, items] of Object.entries(parsed as Record<string, unknown>)) {
        if (!items || typeof items !== 'object') {
          errors.push(`Category '${cat}' must map to an object of items`);
          continue;
        }
        for (const [item, value] of Object.entries(items as Record<string, unknown>)) {
          const err = d.config.set(cat, item, String(value));
          if (err) errors.push(err);
        }
      }
      return errors.length ? fail(400, ...errors) : ok();
    },
  },
  // Flash: a sub-path of at most one element selects the categories by wildcard
  // (route_configs.cc). save_to_flash lists what it wrote (only stale categories) always; the
  // other two list what they touched only when a category was named.
  ...(['save_to_flash', 'load_from_flash', 'reset_to_default'] as const).map(
    (command): Call => ({
      method: 'PUT',
      route: 'configs',
      command,
      subPath: true,
      params: [],
      handle(d, { path }) {
        const parts = path.split('/').filter((x) => x !== '');
        if (parts.length > 1) return fail(400, 'Path depth exceeds 1.');
        const pattern = parts[0] === undefined ? undefined : decodeURIComponent(parts[0]);
        if (command === 'save_to_flash') return ok({ written: d.config.saveToFlash(pattern) });
        const names = command === 'load_from_flash' ? d.config.loadFromFlash(pattern) : d.config.resetToDefault(pattern);
        if (pattern === undefined) return ok();
        return ok(command === 'load_from_flash' ? { loaded: names } : { reset: names });
      },
    }),
  ),

  // Files.
  {
    method: 'GET',
    route: 'files',
    command: 'info',
    subPath: true,
    params: [],
    handle(d, { path }) {
      const p = safeResolve(d, `/${decodeURIComponent(path)}`);
      const st = d.fs.stat(p);
      if (!st) return fail(404, 'File not found');
      const name = p.split('/').pop() ?? '';
      return ok({
        files: {
          path: p.replace(/^\//, ''),
          filename: name,
          size: st.size,
          extension: name.includes('.') ? name.split('.').pop()!.toUpperCase() : '',
        },
      });
    },
  },

  // Empty formatted images (route_files.cc): D64 with `tracks` 35..41 (default 35), D71, D81. The
  // disk name defaults to the file name without its extension. The answer names the path (D64/D71
  // also the tracks), the disk name and the bytes written, also alongside an error.
  ...(['create_d64', 'create_d71', 'create_d81'] as const).map(
    (command): Call => ({
      method: 'PUT',
      route: 'files',
      command,
      subPath: true,
      params: [...(command === 'create_d64' ? [{ name: 'tracks', required: false }] : []), { name: 'diskname', required: false }],
      handle(d, { args, path }) {
        const full = decodeURIComponent(path);
        const tracksArg = args.get('tracks');
        const tracks = command === 'create_d71' ? 70 : tracksArg === undefined ? 35 : strtol(tracksArg, 10);
        const fileName = full.split('/').pop() ?? '';
        const dot = fileName.lastIndexOf('.');
        const diskname = args.get('diskname') ?? (dot >= 0 ? fileName.slice(0, dot) : fileName);
        const answer = command === 'create_d81' ? { path: full, diskname } : { path: full, tracks, diskname };
        if (command === 'create_d64' && (tracks < 35 || tracks > 41)) {
          return { status: 400, json: { ...answer, errors: ['Track count should be between 35 and 41.'] } };
        }
        const image =
          command === 'create_d64' ? formatD64(tracks, diskname) : command === 'create_d71' ? formatD71(diskname) : formatD81(diskname);
        try {
          d.fs.write(d.fs.resolve('/', `/${full}`), image);
        } catch (e) {
          if (e instanceof FsError) return { status: 500, json: { ...answer, bytes_written: 0, errors: [e.message] } };
          throw e;
        }
        return ok({ ...answer, bytes_written: image.length });
      },
    }),
  ),

  // CMD native partition (route_files.cc create_dnp): `tracks` is required, 1..255 (strtol base 10
  // as get_int); an out-of-range count answers before the disk name is known. Size tracks × 64 KiB.
  {
    method: 'PUT',
    route: 'files',
    command: 'create_dnp',
    subPath: true,
    params: [
      { name: 'tracks', required: true },
      { name: 'diskname', required: false },
    ],
    handle(d, { args, path }) {
      const full = decodeURIComponent(path);
      const tracks = strtol(args.get('tracks'), 10);
      if (tracks < 1 || tracks > 255) {
        return { status: 400, json: { path: full, tracks, errors: ['Invalid number of tracks (1-255).'] } };
      }
      const fileName = full.split('/').pop() ?? '';
      const dot = fileName.lastIndexOf('.');
      const diskname = args.get('diskname') ?? (dot >= 0 ? fileName.slice(0, dot) : fileName);
      const answer = { path: full, tracks, diskname };
      const image = formatDnp(tracks, diskname);
      try {
        d.fs.write(d.fs.resolve('/', `/${full}`), image);
      } catch (e) {
        if (e instanceof FsError) return { status: 500, json: { ...answer, bytes_written: 0, errors: [e.message] } };
        throw e;
      }
      return ok({ ...answer, bytes_written: image.length });
    },
  },

  // Streams: the virtual device produces the debug stream only. The stream name is matched
  // case-insensitively; an unknown one is a JSON 404 (route_streams.cc); `ip` is required (an empty
  // one means the configured default).
  ...(['start', 'stop'] as const).map(
    (command): Call => ({
      method: 'PUT',
      route: 'streams',
      command,
      subPath: true,
      params: command === 'start' ? [{ name: 'ip', required: true }] : [],
      async handle(d, { args, path }) {
        const kind = decodeURIComponent(path).toLowerCase();
        if (kind !== 'video' && kind !== 'audio' && kind !== 'debug') return fail(404, 'Unrecognized stream name');
        if (command === 'stop') {
          if (kind === 'debug') d.stopDebugStream();
          return ok();
        }
        if (kind !== 'debug') return fail(501, `The virtual device does not produce a ${kind} stream`);
        const given = args.get('ip') ?? '';
        const raw = given === '' ? String(d.config.get('Data Streams', 'Stream Debug to')) : given;
        const dest = parseDestination(raw);
        if (!dest) return fail(400, `Invalid destination '${raw}'; expected an IPv4 address with optional :port`);
        await d.startDebugStream(dest);
        return ok();
      },
    }),
  ),
];

/** route_drives.h ImageTypeToInt / ImageTypeToCommand / ModeToInt, and the subsystem ids. */
const IMAGE_TYPE_FTYPE: Record<string, number> = { d64: 1541, d71: 1571, d81: 1581, g64: 1541, g71: 1571 };
const MOUNT_D64 = 0x1520;
const MOUNT_G64 = 0x1530;
const IMAGE_TYPE_COMMAND: Record<string, number> = { d64: MOUNT_D64, d71: MOUNT_D64, d81: MOUNT_D64, g64: MOUNT_G64, g71: MOUNT_G64 };
const MODE_BITS: Record<string, number> = { readwrite: 0, readonly: 0x8000, unlinked: 0x4000 };
const SUBSYS_DRIVE_A = 2;
const SUBSYS_IEC = 7;

/** The SoftIEC drive's entry in GET drives (IecInterface::info + IecDrive::info, power-on state). */
const SOFTIEC_INFO = {
  'IEC Drive': {
    bus_id: 11,
    enabled: false,
    type: 'DOS emulation',
    last_error: '73,U64HD ULTIMATE DOS V2.0,00,00',
    partitions: [{ id: 1, path: '/Temp' }],
  },
};

/** api_mount (route_drives.cc): drive, then type (with the mode bits), then the image. */
function mountImage(d: RestDevice, path: string, image: string, typeArg: string | undefined, modeArg: string | undefined): Answer {
  const drive = findDrive(d, path);
  if (!drive) return fail(400, `Invalid Drive '${decodeURIComponent(path)}'`);
  // The type defaults to the image's extension (at most three characters, as get_extension).
  const type = typeArg ?? extension(image);
  const ftype = IMAGE_TYPE_FTYPE[type.toLowerCase()];
  const base = IMAGE_TYPE_COMMAND[type.toLowerCase()];
  if (ftype === undefined || base === undefined) return fail(400, `Invalid Type '${type}'`);
  const mode = modeArg ?? '';
  const command = base | (MODE_BITS[mode.toLowerCase()] ?? 0);
  const answer = { Subsys: drive === 'softiec' ? SUBSYS_IEC : drive.subsys, Ftype: ftype, command, file: image };
  if (drive === 'softiec') return ok(answer);
  const resolved = safeResolve(d, image);
  const st = d.fs.stat(resolved);
  if (!st || st.dir) return { status: 404, json: { ...answer, errors: ['Cannot open file'] } };
  drive.state.image = resolved;
  drive.state.mode = mode.toLowerCase() in MODE_BITS && mode !== '' ? mode.toLowerCase() : 'readwrite';
  return ok(answer);
}

/** FLOPPY_LOAD_DOS through simple_drive_command: the drive, then the file. */
function loadRom(d: RestDevice, path: string, file: string): Answer {
  const drive = findDrive(d, path);
  if (!drive) return fail(400, `Invalid Drive '${decodeURIComponent(path)}'`);
  if (drive === 'softiec') return ok();
  const f = loadFile(d, file);
  if (!(f instanceof Uint8Array)) return f;
  drive.state.rom = safeResolve(d, file).split('/').pop();
  return ok();
}

/** The characters fix_filename turns into `_` (FAT-illegal). */
const ILLEGAL_NAME_CHARS = /["*:/<>\\?|,\x7f]/g;

/**
 * Where the firmware's attachment writer puts an upload (FileManager::create_temp_file, category
 * "upload", temp subfolders on as by default): /Temp/cache/upload/<name>, the name being the
 * multipart file name without leading dots and slashes and with FAT-illegal characters turned into
 * `_`; a raw body has no name and becomes `temp%04x` from the device's temp counter. An existing
 * name gets `_1`, `_2`… before its extension (the firmware opens with FA_CREATE_NEW). Returns the
 * stored path, or '' when it could not be stored (the firmware then records an empty name).
 */
function storeUpload(d: RestDevice, data: Uint8Array, suggested: string | undefined): string {
  const seq = tempSeq.get(d) ?? 0;
  tempSeq.set(d, seq + 1);
  const name = (suggested ?? '')
    .replace(/^[./\\]+/, '')
    .slice(0, 127)
    .replace(ILLEGAL_NAME_CHARS, '_');
  const dir = '/Temp/cache/upload';
  try {
    for (const p of ['/Temp/cache', dir]) if (!d.fs.stat(p)) d.fs.mkdir(p);
    for (let suffix = 0; ; suffix++) {
      const full = `${dir}/${tempName(name, seq, suffix)}`;
      if (d.fs.stat(full)) continue;
      d.fs.write(full, data);
      return full;
    }
  } catch (e) {
    if (e instanceof FsError) return '';
    throw e;
  }
}

/** build_temp_path's file name: the given name (suffix before its extension) or `temp%04x[_n]`. */
function tempName(name: string, seq: number, suffix: number): string {
  if (name === '') return `temp${seq.toString(16).padStart(4, '0')}${suffix ? `_${suffix}` : ''}`;
  if (suffix === 0) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}_${suffix}${name.slice(dot)}` : `${name}_${suffix}`;
}

/** The firmware's next_temp_seq, one counter per device. */
const tempSeq = new WeakMap<RestDevice, number>();

function findDrive(d: RestDevice, path: string): { state: DriveState; subsys: number } | 'softiec' | undefined {
  const name = decodeURIComponent(path).toLowerCase();
  if (name === 'softiec') return 'softiec';
  let i = 0;
  for (const [id, state] of d.drives) {
    if (id.toLowerCase() === name) return { state, subsys: SUBSYS_DRIVE_A + i };
    i++;
  }
  return undefined;
}

/** The firmware's get_extension: up to three characters after the last dot. */
function extension(file: string): string {
  const name = file.split('/').pop() ?? '';
  const dot = name.lastIndexOf('.');
  return dot >= 0 ? name.slice(dot + 1, dot + 4) : '';
}

function safeResolve(d: RestDevice, p: string): string {
  try {
    return d.fs.resolve('/', p);
  } catch {
    return '/';
  }
}

/** Splits `/v1/<route>[/<path>][:<command>]`; undefined when the URL is not of that shape. */
export function parseApiPath(pathname: string): { route: string; path: string; command: string } | undefined {
  const m = /^\/v1\/([a-z_]+)(?:\/([^:]*))?(?::([a-z_0-9]+))?$/.exec(pathname);
  if (!m) return undefined;
  return { route: m[1]!, path: m[2] ?? '', command: m[3] ?? '' };
}

/** Finds the call for a request, or undefined (the server then answers a bare 404). */
export function findCall(
  method: string,
  route: string,
  path: string,
  command: string,
  family: UltimateFamily = 'u64',
  firmware: '3.14' | '3.15' = '3.15',
): Call | undefined {
  return CALLS.find(
    (c) =>
      (family === 'u64' || !c.u64Only) &&
      (firmware === '3.15' || !c.since315) &&
      (c.familyOnly === undefined || c.familyOnly === family) &&
      c.method === method &&
      c.route === route &&
      c.command === command &&
      (c.pathMatch !== undefined ? c.pathMatch === path : c.subPath ? true : path === ''),
  );
}

/** Checks the query against the call's parameters, with the firmware's messages. */
export function checkParams(call: Call, args: Map<string, string>): string[] {
  const errors: string[] = [];
  // The firmware names a command-less call `none` (its URL splitter's default command).
  const name = call.command || 'none';
  for (const k of args.keys()) {
    if (!call.params.some((p) => p.name === k)) errors.push(`Function ${name} does not have parameter ${k}`);
  }
  for (const p of call.params) {
    if (p.required && !args.has(p.name)) errors.push(`Function ${name} requires parameter ${p.name}`);
  }
  return errors;
}

export type { Call };
