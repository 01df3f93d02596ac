// The U64 debug stream datagram (DEVICE.md): 1444 bytes = u16 LE sequence, u16 reserved, then 360
// little-endian u32 bus-cycle entries. Shared by the capture (receiver) and the virtual streamer.
export const DEBUG_DATAGRAM_BYTES = 1444;
export const DEBUG_HEADER_BYTES = 4;
export const DEBUG_ENTRIES_PER_DATAGRAM = 360;
/** The real device sends about this many datagrams per second (one entry per ~0.985 MHz clock). */
export const DEVICE_DATAGRAMS_PER_SECOND = 2737;

export function datagramSequence(d: Uint8Array): number {
  return d[0]! | (d[1]! << 8);
}

/** The entries of one datagram (a view when aligned, a copy otherwise). */
export function datagramEntries(d: Uint8Array): Uint32Array {
  const n = Math.max(0, Math.floor((d.length - DEBUG_HEADER_BYTES) / 4));
  const off = d.byteOffset + DEBUG_HEADER_BYTES;
  if (off % 4 === 0) return new Uint32Array(d.buffer, off, n);
  const out = new Uint32Array(n);
  const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
  for (let i = 0; i < n; i++) out[i] = dv.getUint32(DEBUG_HEADER_BYTES + 4 * i, true);
  return out;
}
