// The firmware's "Debug Stream Mode" setting (software/io/network/data_streamer.cc): what the
// debug stream carries. The virtual C64 has no 1541, so the 1541 modes carry the 6510 part only
// ("1541 Only" carries nothing); see docs/ultimate/DEVICE-CLIENT.md.
export const DEBUG_STREAM_MODES = [
  '6510 Only',
  'VIC Only',
  '6510 & VIC',
  '1541 Only',
  '6510 & 1541',
  '6510 w/IEC',
  '6510 & VIC w/IEC',
] as const;
export type DebugStreamMode = (typeof DEBUG_STREAM_MODES)[number];

export function isDebugStreamMode(s: string): s is DebugStreamMode {
  return (DEBUG_STREAM_MODES as readonly string[]).includes(s);
}
