// The contract data the tools answer from: the engine's byte-exact copies where it ships them,
// plus the three this adapter ships itself (adapters/lispex/contracts/, byte-exact copies).

import profileJson from '../../engines/lispex/contracts/lispex-profile-1.5.json' with { type: 'json' };
import catalogJson from '../../engines/lispex/contracts/diagnostic-catalog.v1.json' with { type: 'json' };
import capabilitiesJson from '../../engines/lispex/contracts/primitive-capabilities.v2.json' with { type: 'json' };
import frontendJson from '../../engines/lispex/contracts/source-frontend.v1.json' with { type: 'json' };
import resourceProfilesJson from '../../engines/lispex/contracts/resource-profiles.v1.json' with { type: 'json' };
import meterJson from '../../engines/lispex/contracts/meter-manifest.v3.json' with { type: 'json' };
import surfaceJson from './contracts/full-profile-surface.v0.json' with { type: 'json' };
import interactiveJson from './contracts/interactive-output.v1.json' with { type: 'json' };
import observationJson from './contracts/observation-result.v1.json' with { type: 'json' };

export const PROFILE = profileJson;
export const DIAGNOSTIC_CATALOG = catalogJson;
export const PRIMITIVE_CAPABILITIES = capabilitiesJson;
export const SOURCE_FRONTEND = frontendJson;
export const RESOURCE_PROFILES = resourceProfilesJson;
export const METER_MANIFEST = meterJson;
export const PROFILE_SURFACE = surfaceJson;
export const INTERACTIVE_OUTPUT = interactiveJson;
export const OBSERVATION_RESULT = observationJson;

/** The resource profile every MCP evaluation runs under. */
export const MCP_RESOURCE_PROFILE_ID = 'lispex-mcp-local-authoring/v1';

export function mcpResourceProfile(): { id: string; purpose: string; limits: Record<string, number> } {
  const profile = RESOURCE_PROFILES.profiles.find((p) => p.id === MCP_RESOURCE_PROFILE_ID);
  if (!profile) throw new Error(`resource profile ${MCP_RESOURCE_PROFILE_ID} missing from resource-profiles.v1.json`);
  const limits = Object.fromEntries(RESOURCE_PROFILES.fields.map((field, i) => [field, profile.limits[i]!]));
  return { id: profile.id, purpose: profile.purpose, limits };
}

/** Rows of a column-table contract as objects keyed by its column names. */
export function rowsAsObjects(table: { columns: string[]; rows: unknown[][] }): Array<Record<string, unknown>> {
  return table.rows.map((row) => Object.fromEntries(table.columns.map((c, i) => [c, row[i]])));
}
