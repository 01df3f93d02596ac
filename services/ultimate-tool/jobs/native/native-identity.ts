// The identity a native intent is bound to: exactly what the probe saw (device host, product,
// unique id, host name, firmware, FPGA, core, API version, virtual), compared field by field before
// every native run and every health check. Only an Ultimate 64 Elite II runs .UE2 update files.
import type { BoundIdentity } from './native-records.js';

/** From the stored probe snapshot (probes.ts identityOf) to the bound identity. */
export function boundIdentityOf(snapshot: Record<string, unknown>): BoundIdentity {
  const str = (k: string) => (typeof snapshot[k] === 'string' ? (snapshot[k] as string) : '');
  const opt = (k: string) => (typeof snapshot[k] === 'string' ? (snapshot[k] as string) : null);
  return {
    device_host: str('host'),
    product: str('product'),
    unique_id: opt('unique_id'),
    hostname: str('hostname'),
    firmware: str('firmware_version'),
    fpga: str('fpga_version'),
    core: opt('core_version'),
    api_version: str('api_version'),
    virtual: snapshot.virtual === true,
  };
}

/** The fields that differ (empty when the identity is exact). */
export function identityDifferences(bound: BoundIdentity, now: BoundIdentity): string[] {
  return (Object.keys(bound) as Array<keyof BoundIdentity>).filter((k) => bound[k] !== now[k]);
}

/** The firmware's product string of an Elite II ("Ultimate 64 Elite II", or the virtual one's). */
export function isElite2(product: string): boolean {
  return /ultimate\s*64\s*elite\s*ii\b/i.test(product);
}
