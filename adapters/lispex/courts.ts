// The three closed comparison courts and whether this server can hold each one. tree-rust runs
// our tree and our bytecode VM (which fills the court's "Rust VM" member); rust-topaz adds the
// Topaz VM product given by --topaz-vm; all-four adds a fresh AOT product built per request by
// --topaz-compiler with --rust-tools (engines/lispex/external/). A court whose startup products
// are missing answers court_available:false without attempting any route.

import type { Court, CourtMember } from './result-schemas.js';
import type { ProductFlag, StartupProducts } from './products.js';

export interface CourtDefinition {
  readonly court: Court;
  readonly members: readonly CourtMember[];
  readonly prerequisite: readonly ProductFlag[];
}

export const COURTS: readonly CourtDefinition[] = [
  { court: 'tree-rust', members: ['tree', 'rust-vm'], prerequisite: [] },
  { court: 'rust-topaz', members: ['rust-vm', 'topaz-vm'], prerequisite: ['--topaz-vm'] },
  {
    court: 'all-four',
    members: ['tree', 'rust-vm', 'topaz-vm', 'fresh-aot'],
    prerequisite: ['--topaz-vm', '--topaz-compiler', '--rust-tools'],
  },
];

export interface CourtAvailability {
  readonly available: boolean;
  readonly reason: null | {
    readonly code: 'missing-startup-product' | 'external-route-not-implemented';
    readonly message: string;
    readonly missing_startup_options: string[];
  };
}

export function courtDefinition(court: Court): CourtDefinition {
  return COURTS.find((c) => c.court === court)!;
}

export function courtAvailability(court: Court, products: StartupProducts): CourtAvailability {
  const definition = courtDefinition(court);
  if (definition.prerequisite.length === 0) return { available: true, reason: null };
  const configured: Record<ProductFlag, boolean> = {
    '--topaz-vm': products.topazVm !== undefined,
    '--topaz-compiler': products.topazCompiler !== undefined,
    '--rust-tools': products.rustTools !== undefined,
  };
  const missing = definition.prerequisite.filter((flag) => !configured[flag]);
  if (missing.length > 0) {
    return {
      available: false,
      reason: {
        code: 'missing-startup-product',
        message: `court ${court} needs the startup option${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
        missing_startup_options: [...missing],
      },
    };
  }
  return { available: true, reason: null };
}
