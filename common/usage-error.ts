// A command-line misuse: every bin prints the message and its usage to stderr and exits 64
// (EX_USAGE from sysexits.h), so scripts can tell "you called it wrong" from "it failed".
export const EXIT_USAGE = 64;

export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly exitCode = EXIT_USAGE;
}
