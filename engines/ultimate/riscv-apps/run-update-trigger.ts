// THE mechanism by which the Ultimate Tool makes an Ultimate 64 Elite II run an update file — the
// one place that names it (design choice; docs/ultimate/NATIVE.md, "The trigger").
//
// The firmware has no public REST route that runs an update: "Run Update" is a file-browser action
// (action code 0x7501 on a file with the product's extension, software/filetypes/filetype_u2p.cc).
// Our design, implemented by the virtual Elite II:
//   1. FTP creation: STOR the .UE2 into the RAM disk, at RUN_UPDATE_DIR/<name>.ue2.
//   2. The final Run Update write: REST `PUT /v1/runners:run_update?file=<that path>`, the
//      file-browser action exposed as a runner next to run_prg. It answers 200 with the entry and
//      record count, and then the firmware is gone: REST, FTP and DMA refuse connections until a
//      power cycle. On hardware (or a virtual device configured to drop the answer) the answer
//      may never arrive; a caller must then treat acceptance as uncertain, never retry.
// The UTR2 token travels separately, through C64 memory (utr2-mailbox.ts), before step 2.
import type { UltimateFtp } from '../ftp.js';
import type { RestClient } from '../rest.js';
import { UTR2_MAILBOX_C64_ADDRESS, encodeUtr2Mailbox } from './utr2-mailbox.js';

/** The REST command (route `runners`) that runs a stored update file. */
export const RUN_UPDATE_COMMAND = 'run_update';
/** The REST path of the trigger. */
export const RUN_UPDATE_PATH = `/v1/runners:${RUN_UPDATE_COMMAND}`;
/** Where update files are uploaded: the device's RAM disk. */
export const RUN_UPDATE_DIR = '/Temp';
/** The file extension the Elite II's firmware runs as an update. */
export const UE2_EXTENSION = '.ue2';

/** The device path an update file named `name` is uploaded to. */
export function runUpdateFilePath(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(name))
    throw new Error(`update file name ${JSON.stringify(name)}: expected 1-32 letters, digits, "_" or "-"`);
  return `${RUN_UPDATE_DIR}/${name}${UE2_EXTENSION}`;
}

/** Step 1: FTP creation of the update file. Returns its device path. */
export async function uploadUpdateFile(ftp: UltimateFtp, name: string, ue2: Uint8Array): Promise<string> {
  const path = runUpdateFilePath(name);
  await ftp.upload(path, ue2);
  return path;
}

/** Places the invocation's UTR2 token in the C64 mailbox (REST writemem). */
export async function placeUtr2Token(rest: RestClient, token: string): Promise<void> {
  await rest.writeMemory(UTR2_MAILBOX_C64_ADDRESS, encodeUtr2Mailbox(token));
}

/** Step 2: the final Run Update write. Resolves with the device's answer; a network error means uncertain acceptance. */
export async function triggerRunUpdate(rest: RestClient, path: string): Promise<Record<string, unknown>> {
  return (await rest.request('PUT', RUN_UPDATE_PATH, { query: { file: path } })) as Record<string, unknown>;
}
