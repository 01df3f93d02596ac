// Why the RV32 interpreter stopped. The virtual Elite II has no firmware trap handler to jump to
// (the native program has replaced the firmware), so every exception stops the interpreter with the
// cause and the machine-mode values the hardware would have put in mcause/mepc/mtval; the native
// mode then decides what the device does (see docs/ultimate/NATIVE.md).

/** Exception causes with their mcause codes from the RISC-V privileged specification. */
export const TRAP_CAUSE_CODE = {
  'instruction-address-misaligned': 0,
  'instruction-access-fault': 1,
  'illegal-instruction': 2,
  breakpoint: 3,
  'load-address-misaligned': 4,
  'load-access-fault': 5,
  'store-address-misaligned': 6,
  'store-access-fault': 7,
  'environment-call': 11,
} as const;

export type TrapCause = keyof typeof TRAP_CAUSE_CODE;

export type Rv32Stop =
  /** The instruction limit given to run() was reached; run() can be called again. */
  | { readonly kind: 'limit' }
  /** ECALL at `pc` (not retired; the host may act on a0..a7 and resume at pc + 4). */
  | { readonly kind: 'ecall'; readonly pc: number }
  /** EBREAK at `pc` (not retired). */
  | { readonly kind: 'ebreak'; readonly pc: number }
  /** `jal x0, 0` at `pc`: the program parks in a one-instruction loop, so spinning it is pointless. */
  | { readonly kind: 'parked'; readonly pc: number }
  /** Any other exception: `pc` is the faulting instruction (mepc), `tval` the bad address or word. */
  | {
      readonly kind: 'trap';
      readonly cause: Exclude<TrapCause, 'breakpoint' | 'environment-call'>;
      readonly pc: number;
      readonly tval: number;
    };
