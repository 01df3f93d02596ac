// Memory checkpoints during a run (docs/ultimate/CHECKPOINT_COMPARISON.md): the plan of the test,
// which points were captured, and the capture written as `checkpoints.json`. The targets run the
// pause episodes (VICE: monitor stop, MEMORY_GET, one MEMORY_SET, one EXIT; Ultimate: pause,
// readmem, one writemem, resume); this object only says which marker is a point and keeps the
// bytes. It exists only for a test that has checkpoints.
import { CHECKPOINT_CAPTURE_SCHEMA_VERSION, type CheckpointCapture } from '../analysis/checkpoint-comparison.js';
import type { CheckpointPointSpec } from '../project/manifest.js';

/** The acknowledgement byte the harness's checkpoint routine waits on (examples/c64-project/src/harness.asm). */
export const CHECKPOINT_ACK_ADDRESS = 0x03fe;

export class CheckpointRecorder {
  readonly #plan: readonly CheckpointPointSpec[];
  readonly #captured: CheckpointCapture['points'] = [];
  /** Host writes made during the run: one acknowledgement byte per point (the mutation budget). */
  acknowledgements = 0;
  /**
   * true: the program spins in the harness's checkpoint routine until the host writes the marker
   * to $03FE (the pause episode). false: no harness — the point is captured at the exact write of
   * the marker (VICE: the monitor stop; Ultimate: reconstructed from the bus trace) and nothing is
   * written to the machine.
   */
  readonly handshake: boolean;

  constructor(plan: readonly CheckpointPointSpec[], handshake = true) {
    this.#plan = plan;
    this.handshake = handshake;
  }

  /** The planned point announced by `marker`, unless it was captured already. */
  pointFor(marker: number): CheckpointPointSpec | undefined {
    if (this.#captured.some((p) => p.marker === marker)) return undefined;
    return this.#plan.find((p) => p.marker === marker);
  }

  /** Records the ranges of `point` as read while the machine was stopped (in the plan's range order). */
  record(point: CheckpointPointSpec, bytes: readonly Uint8Array[]): void {
    this.#captured.push({
      name: point.name,
      marker: point.marker,
      ranges: point.ranges.map((r, i) => ({
        name: r.name,
        address: r.address,
        length: r.length,
        bytes_hex: Buffer.from(bytes[i] ?? new Uint8Array()).toString('hex'),
      })),
    });
  }

  get capturedCount(): number {
    return this.#captured.length;
  }

  /** Planned points the run never reached, by name. */
  missing(): string[] {
    return this.#plan.filter((p) => !this.#captured.some((c) => c.marker === p.marker)).map((p) => p.name);
  }

  capture(): CheckpointCapture {
    return { checkpoint_capture_schema_version: CHECKPOINT_CAPTURE_SCHEMA_VERSION, points: structuredClone(this.#captured) };
  }
}
