// The stand-in service in its own process (as the real one is): prints its URL, serves until stdin closes.
import { startFakeService } from '../../test/adapters/ultimate/helpers/fake-service.js';

const service = await startFakeService();
process.stdout.write(`${service.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void service.close().then(() => process.exit(0)));
