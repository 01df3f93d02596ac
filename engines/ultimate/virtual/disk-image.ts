// An empty, formatted D64 image as the firmware's `PUT /v1/files/<path>:create_d64` writes it
// (route_files.cc + FileSystemD64::format in firmware 3.15): (683 + 17 × (tracks − 35)) sectors of
// 256 bytes, zero-filled; the BAM at track 18 sector 0 with every sector of the 35 standard tracks
// free except 18/0 and 18/1 (tracks beyond 35 are left untouched, all zero); an empty directory
// block at 18/1.

/** Sectors per track on a 1541 disk (zones). */
export function sectorsPerTrack(track: number): number {
  if (track <= 17) return 21;
  if (track <= 24) return 19;
  if (track <= 30) return 18;
  return 17;
}

/** Byte offset of a track/sector in a D64 image. */
function sectorOffset(track: number, sector: number): number {
  let n = 0;
  for (let t = 1; t < track; t++) n += sectorsPerTrack(t);
  return (n + sector) * 256;
}

/**
 * The 27-byte name area at BAM offset 144 as the firmware fills it: $A0 padding, the DOS type
 * "2A" at 21–22, the name upper-cased, and a comma moving what follows to the disk ID at 18.
 */
function volumeName(name: string): Uint8Array {
  const area = new Uint8Array(27).fill(0xa0);
  area[21] = 0x32; // '2'
  area[22] = 0x41; // 'A'
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
    let free = 0;
    for (let s = 0; s < n; s++) {
      if (t === 18 && s <= 1) continue;
      img[bam + 4 * t + 1 + (s >> 3)]! |= 1 << (s & 7);
      free++;
    }
    img[bam + 4 * t] = free;
  }
  const dir = sectorOffset(18, 1);
  img[dir + 1] = 0xff; // no next block; 256 bytes used
  return img;
}
