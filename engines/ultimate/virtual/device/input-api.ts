// The U64 REST input API of firmware 3.15 (POST/GET machine:input, route_input.cc + input_api.h):
// the batch's validation with the firmware's messages, applying the events to the virtual C64's
// input lines, and the state snapshot both calls answer with.
import { type InputLines, type KeyboardKey, JOYSTICK_INPUTS, KEYBOARD_KEYS } from '../c64/input-lines.js';

export const INPUT_CAPABILITY_ERROR = 'Keyboard and joystick injection require Ultimate 64-class hardware.';
/** INPUT_JSON_BODY_MAX_SIZE: the input call's own body buffer. */
export const INPUT_JSON_BODY_MAX = 4096;
const MAX_EVENTS = 64;
const MAX_KEYBOARD_INPUTS = 8;
const MAX_JOYSTICK_INPUTS = 7;

type Transition = 'press' | 'release' | 'tap';
export type InputEvent =
  | { kind: 'keyboard'; transition: Transition; keys: KeyboardKey[] }
  | { kind: 'joystick'; transition: Transition; port: 1 | 2; mask: number }
  | { kind: 'release_all' };

/** input_api_copy_preview into 32 bytes: a longer text keeps 28 characters and gets "...". */
function preview(s: string): string {
  return s.length <= 31 ? s : `${s.slice(0, 28)}...`;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class InputError extends Error {}

function rejectUnknown(o: Obj, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new InputError(`Unknown field \`${preview(k)}\`.`);
}

function stringField(o: Obj, name: string): string {
  const v = o[name];
  if (v === undefined) throw new InputError(`\`${name}\` is required.`);
  if (typeof v !== 'string') throw new InputError(`\`${name}\` must be a string.`);
  return v;
}

function transition(o: Obj): Transition {
  const t = stringField(o, 'transition');
  if (t === 'press' || t === 'release' || t === 'tap') return t;
  throw new InputError('`transition` must be one of `press`, `release`, or `tap`.');
}

function inputList(o: Obj, max: number): unknown[] {
  const v = o.inputs;
  if (v === undefined) throw new InputError('`inputs` is required.');
  if (!Array.isArray(v)) throw new InputError('`inputs` must be an array.');
  if (v.length < 1 || v.length > max) throw new InputError(`\`inputs\` must contain 1..${max} entries.`);
  return v;
}

function names(list: unknown[], what: 'Keyboard' | 'Joystick', known: readonly string[]): number[] {
  const seen = new Set<number>();
  return list.map((entry) => {
    if (typeof entry !== 'string') throw new InputError(`${what} inputs must be strings.`);
    const index = known.indexOf(entry);
    if (index < 0) throw new InputError(`\`${preview(entry)}\` is not a valid ${what.toLowerCase()} input.`);
    if (seen.has(index)) throw new InputError(`\`${preview(entry)}\` appears more than once in \`inputs\`.`);
    seen.add(index);
    return index;
  });
}

const KEY_NAMES = KEYBOARD_KEYS.map((k) => k.name);

function parseEvent(json: unknown): InputEvent {
  if (!isObject(json)) throw new InputError('Each event must be an object.');
  const kind = stringField(json, 'kind');
  if (kind === 'keyboard') {
    // `port` is not in the allowed list, so "Unknown field `port`." comes first (as the firmware).
    rejectUnknown(json, ['kind', 'inputs', 'transition']);
    const t = transition(json);
    const keys = names(inputList(json, MAX_KEYBOARD_INPUTS), 'Keyboard', KEY_NAMES).map((i) => KEYBOARD_KEYS[i]!);
    if (keys.some((k) => k.restore) && (keys.length !== 1 || t !== 'tap')) {
      throw new InputError('`restore` must appear alone in `inputs` and only with transition `tap`.');
    }
    return { kind, transition: t, keys };
  }
  if (kind === 'joystick') {
    rejectUnknown(json, ['kind', 'port', 'inputs', 'transition']);
    const t = transition(json);
    const port = json.port;
    if (port === undefined) throw new InputError('`port` is required.');
    if (typeof port !== 'number' || !Number.isInteger(port)) throw new InputError('`port` must be an integer.');
    if (port !== 1 && port !== 2) throw new InputError('`port` must be 1 or 2.');
    const bits = names(inputList(json, MAX_JOYSTICK_INPUTS), 'Joystick', JOYSTICK_INPUTS);
    return { kind, transition: t, port, mask: bits.reduce((m, b) => m | (1 << b), 0) };
  }
  if (kind === 'release_all') {
    rejectUnknown(json, ['kind']);
    return { kind };
  }
  throw new InputError('`kind` must be one of `keyboard`, `joystick`, or `release_all`.');
}

/**
 * input_api_validate_batch: the whole batch is checked before any event is applied. JSON the
 * firmware's jsmn parser rejects answers with its error code: -3 (JSMN_ERROR_PART) for text that
 * ends early, -2 (JSMN_ERROR_INVAL) otherwise — JSON.parse stands in for jsmn here.
 */
export function parseInputBatch(text: string): { events: InputEvent[] } | { error: string } {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (e) {
    const code = /end of (JSON )?input/i.test(String(e)) ? -3 : -2;
    return { error: `JSON could not be parsed. Error: ${code}` };
  }
  try {
    if (!isObject(root)) throw new InputError('Root must be an object.');
    rejectUnknown(root, ['events']);
    const list = root.events;
    if (list === undefined) throw new InputError('`events` is required.');
    if (!Array.isArray(list)) throw new InputError('`events` must be an array.');
    if (list.length < 1 || list.length > MAX_EVENTS) throw new InputError('`events` must contain 1..64 entries.');
  } catch (e) {
    if (e instanceof InputError) return { error: e.message };
    throw e;
  }
  const events: InputEvent[] = [];
  for (const [i, ev] of (root.events as unknown[]).entries()) {
    try {
      events.push(parseEvent(ev));
    } catch (e) {
      if (e instanceof InputError) return { error: `events[${i}]: ${e.message}` };
      throw e;
    }
  }
  return { events };
}

/** GET/POST machine:input's answer: held keys, then both ports' held inputs. */
export function inputSnapshot(lines: InputLines): Record<string, unknown> {
  return {
    keyboard: { inputs: lines.heldKeys() },
    joysticks: ([1, 2] as const).map((port) => ({ port, inputs: lines.heldJoystick(port) })),
  };
}

/** apply_batch, then the snapshot (taps show as held: they are, until their hold ends). */
export function applyInputBatch(lines: InputLines, events: readonly InputEvent[]): Record<string, unknown> {
  for (const ev of events) {
    if (ev.kind === 'release_all') lines.releaseAll();
    else if (ev.kind === 'keyboard') {
      if (ev.transition === 'press') lines.pressKeys(ev.keys);
      else if (ev.transition === 'release') lines.releaseKeys(ev.keys);
      else lines.tapKeys(ev.keys);
    } else if (ev.transition === 'press') lines.pressJoystick(ev.port, ev.mask);
    else if (ev.transition === 'release') lines.releaseJoystick(ev.port, ev.mask);
    else lines.tapJoystick(ev.port, ev.mask);
  }
  return inputSnapshot(lines);
}
