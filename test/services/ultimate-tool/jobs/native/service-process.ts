// A service PROCESS for the crash tests (run with `node --import tsx`): the real service, pointed at
// a virtual Elite II that lives in the test process (so the test can hold a device step, SIGKILL
// this process and count what the device saw). Config: one JSON argument. Prints one JSON line with
// its URL once it listens, then serves until killed.
import { UltimateToolService } from '../../../../../services/ultimate-tool/index.js';

const cfg = JSON.parse(process.argv[2] ?? '{}') as {
  project: string;
  store: string;
  http: number;
  ftp: number;
  dma: number;
  bench: number;
};
const svc = await UltimateToolService.start({
  projectDir: cfg.project,
  storeDir: cfg.store,
  port: 0,
  vice: null,
  ultimate: {
    device: { baseUrl: `http://127.0.0.1:${cfg.http}`, ftpPort: cfg.ftp, dmaPort: cfg.dma, timeoutMs: 60_000 },
    virtualDevice: true,
  },
  benchUrl: `http://127.0.0.1:${cfg.bench}`,
});
process.stdout.write(`${JSON.stringify({ url: svc.url })}\n`);
process.once('SIGTERM', () => void svc.stop().then(() => process.exit(0)));
