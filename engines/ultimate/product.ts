// Which Ultimate a device is, from the `product` string of /v1/info. The two families differ in
// what the firmware offers (FF76/FF2x/FF3x on the DMA port, /v1/machine:debugreg and the video
// stream exist on the U64 only) and in the debug stream's bit layout.
export type UltimateFamily = 'u64' | 'u2plus';

/** "Ultimate-II+", "Ultimate-II+L", "Ultimate II" → u2plus; "Ultimate 64", "Ultimate 64 Elite", "C64 Ultimate" → u64. */
export function productFamily(product: string): UltimateFamily {
  return /ultimate[-\s]?ii/i.test(product) ? 'u2plus' : 'u64';
}
