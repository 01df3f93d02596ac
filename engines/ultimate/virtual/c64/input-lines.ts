// What the U64's REST input API (firmware 3.15, route_input.cc) drives into the C64: the keyboard
// matrix and the two joystick ports, as lines CIA 1 sees. The firmware keeps a "persistent" state
// (press/release) and short taps on top of it; a tap is pressed now and released after a hold
// (keyboard: REST_KEYBOARD_TAP_HOLD_TICKS = 60 ms; joystick: one overlay tick, modelled as 20 ms,
// one PAL frame, because the overlay's tick length is not in the route's source). RESTORE is wired
// to NMI on a C64, so pressing it triggers one NMI on the CPU.

/** One key of the firmware's keyboard map: its name, the matrix row (PA line) and column (PB line). */
export interface KeyboardKey {
  readonly name: string;
  readonly row: number;
  readonly col: number;
  readonly restore: boolean;
}

const KEY_NAMES = [
  ['inst_del', 'return', 'cursor_left_right', 'f7', 'f1', 'f3', 'f5', 'cursor_up_down'],
  ['3', 'w', 'a', '4', 'z', 's', 'e', 'left_shift'],
  ['5', 'r', 'd', '6', 'c', 'f', 't', 'x'],
  ['7', 'y', 'g', '8', 'b', 'h', 'u', 'v'],
  ['9', 'i', 'j', '0', 'm', 'k', 'o', 'n'],
  ['plus', 'p', 'l', 'minus', 'period', 'colon', 'at', 'comma'],
  ['pound', 'star', 'semicolon', 'clr_home', 'right_shift', 'equals', 'arrow_up', 'slash'],
  ['1', 'arrow_left', 'ctrl', '2', 'space', 'commodore', 'q', 'run_stop'],
] as const;

/** The firmware's keyboard map in its order (the order GET machine:input lists pressed keys in). */
export const KEYBOARD_KEYS: readonly KeyboardKey[] = [
  ...KEY_NAMES.flatMap((names, row) => names.map((name, col) => ({ name, row, col, restore: false }))),
  { name: 'restore', row: 0, col: 0, restore: true },
];

/** The joystick inputs in the firmware's order; the index is the bit (active low on the port). */
export const JOYSTICK_INPUTS = ['up', 'down', 'left', 'right', 'fire', 'fire2', 'fire3'] as const;
export type JoystickInput = (typeof JOYSTICK_INPUTS)[number];

export const KEYBOARD_TAP_HOLD_MS = 60;
export const JOYSTICK_TAP_HOLD_MS = 20;

/** Bits 0..6 (all released) of a joystick port's active-low state. */
const JOY_IDLE = 0x7f;

export class InputLines {
  /** Held keys by row (PA line): bit = column (PB line). */
  readonly #matrix = new Uint8Array(8);
  #restore = false;
  /** Per port (index 0 = port 1): inputs held with press (bit set = held). */
  readonly #joyHeld = [0, 0];
  /** Per port: inputs held by a running tap. */
  readonly #joyTap = [0, 0];
  readonly #timers = new Set<NodeJS.Timeout>();

  /** `onRestore` is the NMI edge RESTORE makes. */
  constructor(private readonly onRestore: () => void = () => {}) {}

  pressKeys(keys: readonly KeyboardKey[]): void {
    for (const k of keys) {
      if (k.restore) this.#pressRestore();
      else this.#matrix[k.row]! |= 1 << k.col;
    }
  }

  releaseKeys(keys: readonly KeyboardKey[]): void {
    for (const k of keys) {
      if (k.restore) this.#restore = false;
      else this.#matrix[k.row]! &= ~(1 << k.col);
    }
  }

  /** Press now, release after the hold — keys that were already held stay held (as the firmware). */
  tapKeys(keys: readonly KeyboardKey[]): void {
    const before = this.#matrix.slice();
    const restoreBefore = this.#restore;
    this.pressKeys(keys);
    this.#after(KEYBOARD_TAP_HOLD_MS, () => {
      for (const k of keys) {
        if (k.restore) this.#restore = restoreBefore && this.#restore;
        else if (!(before[k.row]! & (1 << k.col))) this.#matrix[k.row]! &= ~(1 << k.col);
      }
    });
  }

  pressJoystick(port: 1 | 2, mask: number): void {
    this.#joyHeld[port - 1]! |= mask;
  }

  releaseJoystick(port: 1 | 2, mask: number): void {
    this.#joyHeld[port - 1]! &= ~mask;
  }

  tapJoystick(port: 1 | 2, mask: number): void {
    this.#joyTap[port - 1] = mask;
    this.#after(JOYSTICK_TAP_HOLD_MS, () => {
      this.#joyTap[port - 1] = 0;
    });
  }

  /** `release_all`: every key, RESTORE and both ports released, taps included. */
  releaseAll(): void {
    this.#matrix.fill(0);
    this.#restore = false;
    this.#joyHeld.fill(0);
    this.#joyTap.fill(0);
    this.#cancelTimers();
  }

  /** Names of the held keys in map order (RESTORE when held). */
  heldKeys(): string[] {
    return KEYBOARD_KEYS.filter((k) => (k.restore ? this.#restore : (this.#matrix[k.row]! & (1 << k.col)) !== 0)).map((k) => k.name);
  }

  /** Names of the held inputs of a port, in map order. */
  heldJoystick(port: 1 | 2): JoystickInput[] {
    const held = this.#joyHeld[port - 1]! | this.#joyTap[port - 1]!;
    return JOYSTICK_INPUTS.filter((_, bit) => (held & (1 << bit)) !== 0);
  }

  /** A port's lines as the CIA sees them: active low, bits 0..4 (fire2/fire3 are paddle lines). */
  joystickLines(port: 1 | 2): number {
    return (JOY_IDLE & ~(this.#joyHeld[port - 1]! | this.#joyTap[port - 1]!)) | 0x80;
  }

  /**
   * CIA 1's port pins given what the chip drives (`a`, `b`: outputs high where not an output): the
   * joysticks pull their lines low (port 2 on PA, port 1 on PB) and a held key connects its PA row
   * line with its PB column line, so a low on either side pulls the other low.
   */
  cia1Pins(a: number, b: number): { a: number; b: number } {
    const pa = a & this.joystickLines(2);
    const pb = b & this.joystickLines(1);
    let outA = pa;
    let outB = pb;
    for (let row = 0; row < 8; row++) {
      const cols = this.#matrix[row]!;
      if (!cols) continue;
      if (!(pa & (1 << row))) outB &= ~cols;
      if ((~pb & cols) !== 0) outA &= ~(1 << row);
    }
    return { a: outA & 0xff, b: outB & 0xff };
  }

  /** Stops pending tap releases (the device is closing). */
  close(): void {
    this.#cancelTimers();
  }

  #pressRestore(): void {
    if (!this.#restore) this.onRestore();
    this.#restore = true;
  }

  #after(ms: number, act: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      act();
    }, ms);
    t.unref();
    this.#timers.add(t);
  }

  #cancelTimers(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
