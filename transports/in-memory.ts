import type { JsonRpcMessage, Transport } from './transport.js';

/**
 * Two linked transports in one process, for tests and embedding.
 * Delivery is asynchronous (a microtask), so a sender never runs the receiver's handler on its own
 * stack and never waits for it. Messages sent before the peer starts are queued.
 */
export class InMemoryTransport implements Transport {
  onmessage?: (message: JsonRpcMessage, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;

  private peer?: InMemoryTransport;
  private started = false;
  private closed = false;
  private queue: JsonRpcMessage[] = [];

  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const pending = this.queue;
    this.queue = [];
    for (const m of pending) this.deliver(m);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) throw new Error('transport is closed');
    const peer = this.peer;
    if (!peer || peer.closed) throw new Error('peer transport is closed');
    if (peer.started) peer.deliver(message);
    else peer.queue.push(message);
  }

  private deliver(message: JsonRpcMessage): void {
    queueMicrotask(() => {
      if (!this.closed) this.onmessage?.(message);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    const peer = this.peer;
    this.onclose?.();
    if (peer && !peer.closed) await peer.close();
  }
}
