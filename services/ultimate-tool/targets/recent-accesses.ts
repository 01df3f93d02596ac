// The judge's short memory of the bus: the last CPU accesses of a trace, which a BRK (its pushes
// and opcode fetch), a JAM (its opcode) and an opcode fetch outside the code are recognised by.
// A ring of typed arrays: it takes every CPU access of a run (tens of millions in a testbench
// program), where a tuple and an Array.shift per access cost a testbench run a tenth of its time
// in allocation and garbage collection. Tuples are made only when a rare event looks back.
import type { Access } from './outside-code.js';

export class RecentAccesses {
  readonly #address: Int32Array;
  readonly #data: Uint8Array;
  readonly #write: Uint8Array;
  readonly #clock: Float64Array;
  /** Index of the next slot to fill; the newest access is at next − 1. */
  #next = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    this.#address = new Int32Array(capacity);
    this.#data = new Uint8Array(capacity);
    this.#write = new Uint8Array(capacity);
    this.#clock = new Float64Array(capacity);
  }

  get length(): number {
    return this.#size;
  }

  push(address: number, data: number, write: boolean, clock: number): void {
    const i = this.#next;
    this.#address[i] = address;
    this.#data[i] = data;
    this.#write[i] = write ? 1 : 0;
    this.#clock[i] = clock;
    this.#next = i + 1 === this.capacity ? 0 : i + 1;
    if (this.#size < this.capacity) this.#size++;
  }

  #slot(back: number): number {
    return (this.#next - 1 - back + 2 * this.capacity) % this.capacity;
  }

  /** The newest access's address (−1 when none): the hot path's look back, without a tuple. */
  get newestAddress(): number {
    return this.#size === 0 ? -1 : this.#address[this.#slot(0)]!;
  }

  get newestData(): number {
    return this.#data[this.#slot(0)]!;
  }

  get newestIsWrite(): boolean {
    return this.#write[this.#slot(0)] === 1;
  }

  /** The accesses, oldest first, as tuples (for the rare look-backs). */
  toArray(): Access[] {
    const out: Access[] = [];
    for (let back = this.#size - 1; back >= 0; back--) {
      const i = this.#slot(back);
      out.push([this.#address[i]!, this.#data[i]!, this.#write[i] === 1, this.#clock[i]!]);
    }
    return out;
  }
}
