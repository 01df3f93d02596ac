// Empty, formatted disk images as the firmware's `PUT /v1/files/<path>:create_d64|d71|d81` write
// them (route_files.cc + FileSystemD64/D71/D81::format in firmware 3.15), zero-filled otherwise:
// - D64: (683 + 17 × (tracks − 35)) sectors; BAM at 18/0 with every sector of the 35 standard tracks
//   free except 18/0 and 18/1 (tracks beyond 35 are left untouched, all zero); directory at 18/1.
// - D71: 1366 sectors; BAM at 18/0 (side 2's free counts at $DD) and 53/0 (side 2's bitmaps);
//   18/0, 18/1 and all of track 53 in use; directory at 18/1.
// - D81: 3200 sectors, 80 tracks of 40; header at 40/0, BAM at 40/1 and 40/2 (6 bytes a track from
//   $10); 40/0–40/3 in use; directory at 40/3.

/** Sectors per track on a 1541 disk (zones). */
export function sectorsPerTrack(track: number): number {
  if (track <= 17) return 21;
  if (track <= 24) return 19;
  if (track <= 30) return 18;
  return 17;
}

/** Byte offset of a track/sector in a D64 image (D71: side 2 repeats the zones from track 36). */
function sectorOffset(track: number, sector: number): number {
  let n = 0;
  for (let t = 1; t < track; t++) n += sectorsPerTrack(t > 35 ? t - 35 : t);
  return (n + sector) * 256;
}

/** Marks a sector free in a bitmap (bit set = free) and counts it, as modify_allocation_bit does. */
function free(img: Uint8Array, countAt: number, bitsAt: number, sector: number): void {
  img[bitsAt + (sector >> 3)]! |= 1 << (sector & 7);
  img[countAt]!++;
}

/** Marks a free sector used and uncounts it. */
function use(img: Uint8Array, countAt: number, bitsAt: number, sector: number): void {
  const bit = 1 << (sector & 7);
  if (!(img[bitsAt + (sector >> 3)]! & bit)) return;
  img[bitsAt + (sector >> 3)]! &= ~bit;
  if (img[countAt]! > 0) img[countAt]!--;
}

/**
 * The 27-byte name area at BAM offset 144 as the firmware fills it: $A0 padding, the DOS type
 * "2A" at 21–22, the name upper-cased, and a comma moving what follows to the disk ID at 18.
 */
function volumeName(name: string, dos = '2A'): Uint8Array {
  const area = new Uint8Array(27).fill(0xa0);
  area[21] = dos.charCodeAt(0);
  area[22] = dos.charCodeAt(1);
  let t = 0;
  for (const ch of name) {
    if (t >= 27) break;
    if (ch === ',') {
      t = 18;
      continue;
    }
    area[t++] = ch.toUpperCase().charCodeAt(0) & 0xff;
  }
  return area;
}

/** Image size for a D64 of `tracks` tracks (35..41), as the firmware computes it. */
export function d64Size(tracks: number): number {
  return (17 * (tracks - 35) + 683) * 256;
}

export function formatD64(tracks: number, name: string): Uint8Array {
  const img = new Uint8Array(d64Size(tracks));
  const bam = sectorOffset(18, 0);
  img[bam] = 18; // first directory block: 18/1
  img[bam + 1] = 1;
  img[bam + 2] = 0x41; // DOS version 'A'
  img[bam + 3] = 0x20; // as FileSystemD64::format writes it
  img.set(volumeName(name), bam + 144);
  for (let t = 1; t <= 35; t++) {
    const n = sectorsPerTrack(t);
    for (let s = 0; s < n; s++) if (!(t === 18 && s <= 1)) free(img, bam + 4 * t, bam + 4 * t + 1, s);
  }
  const dir = sectorOffset(18, 1);
  img[dir + 1] = 0xff; // no next block; 256 bytes used
  return img;
}

export const D71_BYTES = 683 * 2 * 256;
export const D81_BYTES = 3200 * 256;

export function formatD71(name: string): Uint8Array {
  const img = new Uint8Array(D71_BYTES);
  const bam = sectorOffset(18, 0);
  const bam2 = sectorOffset(53, 0);
  img[bam] = 18;
  img[bam + 1] = 1;
  img[bam + 2] = 0x41;
  img[bam + 3] = 0x80; // double sided
  img.set(volumeName(name), bam + 144);
  const where = (t: number): [number, number] => (t > 35 ? [bam + 0xdd + (t - 36), bam2 + 3 * (t - 36)] : [bam + 4 * t, bam + 4 * t + 1]);
  for (let t = 1; t <= 70; t++) {
    const [count, bits] = where(t);
    for (let s = 0; s < sectorsPerTrack(t > 35 ? t - 35 : t); s++) free(img, count, bits, s);
  }
  const [c18, b18] = where(18);
  use(img, c18, b18, 0);
  use(img, c18, b18, 1);
  const [c53, b53] = where(53);
  for (let s = 0; s < 19; s++) use(img, c53, b53, s);
  img[sectorOffset(18, 1) + 1] = 0xff;
  return img;
}

export function formatD81(name: string): Uint8Array {
  const img = new Uint8Array(D81_BYTES);
  const at = (t: number, s: number) => ((t - 1) * 40 + s) * 256;
  const root = at(40, 0);
  img[root] = 40; // directory at 40/3
  img[root + 1] = 3;
  img[root + 2] = 0x44; // 'D'
  img.set(volumeName(name, '3D'), root + 4);
  const bam = at(40, 1); // 512 bytes: 40/1 then 40/2
  const where = (t: number): [number, number] => {
    const c = t > 40 ? bam + 0x110 + 6 * (t - 41) : bam + 0x10 + 6 * (t - 1);
    return [c, c + 1];
  };
  for (let t = 1; t <= 80; t++) {
    const [count, bits] = where(t);
    for (let s = 0; s < 40; s++) free(img, count, bits, s);
  }
  const [c40, b40] = where(40);
  for (let s = 0; s <= 3; s++) use(img, c40, b40, s);
  const header = [40, 2, 0x44, 0xbb, img[root + 22]!, img[root + 23]!];
  img.set(header, bam);
  img[bam + 6] = 0xc0; // verify on (first BAM block only)
  img.set(header, bam + 256);
  img[bam + 256] = 0; // end of chain
  img[bam + 257] = 0xff;
  img[at(40, 3) + 1] = 0xff;
  return img;
}

/**
 * A CMD native partition image of `tracks` tracks (1..255) of 256 sectors each, laid out as
 * FileSystemDNP::format writes it: the root header at 1/1 (directory at 1/34, DOS 'H', name with
 * "1H", a reference to itself at 32–33); the BAM in sectors 1/2..1/33 (8 KiB, all written) with its
 * header (DOS 'H', 0xB7, the disk ID, verify on, the track count at 8) and a free map from byte 32
 * where a set bit is a free sector, most significant bit first: 0..34 are in use (boot, root,
 * the 32 BAM sectors, directory) and everything from 35 to the end of the image is free; the empty
 * directory block at 1/34.
 */
export function formatDnp(tracks: number, name: string): Uint8Array {
  const sectors = tracks * 256;
  const img = new Uint8Array(sectors * 256);
  const root = 1 * 256;
  img[root] = 1;
  img[root + 1] = 34;
  img[root + 2] = 0x48; // 'H'
  img.set(volumeName(name, '1H'), root + 4);
  img[root + 32] = 1;
  img[root + 33] = 1;
  const bam = 2 * 256;
  img.set([0, 0, 0x48, 0xb7, img[root + 22]!, img[root + 23]!, 0xc0, 0, tracks & 0xff], bam);
  const bamBytes = sectors >> 3;
  img[bam + 36] = 0x1f; // sectors 32..34 in use, 35..39 free
  for (let i = 5; i < bamBytes; i++) img[bam + 32 + i] = 0xff;
  img[34 * 256 + 1] = 0xff;
  return img;
}
