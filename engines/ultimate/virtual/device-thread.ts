// Entry point of the virtual Ultimate's own thread (started by device/virtual-ultimate-thread.ts).
// The device runs here exactly as in-process: its REST, FTP, DMA and VICE monitor servers listen on
// their ports and its debug stream goes out over UDP. Only its pace differs: a receiver on the
// starting thread paces the stream through the shared StreamCredit. tsup builds this file as
// dist/engines/ultimate/virtual/device-thread.js.
import { parentPort, workerData } from 'node:worker_threads';
import { StreamCredit } from '../debug-stream/stream-credit.js';
import type { ThreadReply, ThreadRequest, ThreadStart } from './device/virtual-ultimate-thread.js';
import { VirtualUltimate } from './device/virtual-ultimate.js';

const port = parentPort;
if (!port) throw new Error('device-thread.ts runs as a worker thread (VirtualUltimateThread.start), not as a program');
const start = (workerData as { data: ThreadStart }).data;
const reply = (m: ThreadReply) => port.postMessage(m);

async function main(channel: NonNullable<typeof parentPort>): Promise<void> {
  let device: VirtualUltimate;
  try {
    device = await VirtualUltimate.start({ ...start.options, autoStart: false, streamCredit: new StreamCredit(start.credit) });
  } catch (e) {
    const err = e as Error & { role?: string; host?: string; port?: number; code?: string };
    reply({
      type: 'failed',
      error: { name: err.name, message: err.message, role: err.role, host: err.host, port: err.port, code: err.code },
    });
    channel.close();
    return;
  }
  reply({ type: 'started', ports: device.ports, identity: device.identity() });

  channel.on('message', async (m: ThreadRequest) => {
    switch (m.type) {
      case 'start-clock':
        device.clock.start();
        reply({ type: 'clock-started' });
        break;
      case 'stats':
        reply({ type: 'stats', sent: device.streamer.sent, executed: device.clock.executed, ...device.streamer.paceWaits });
        break;
      case 'stop':
        await device.stop();
        reply({ type: 'stopped' });
        channel.close();
        break;
    }
  });
}

// No top-level await: tsup also builds this file as CommonJS.
void main(port);
