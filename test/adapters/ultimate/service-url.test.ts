// The only origin the adapter accepts: http://127.0.0.1 with an optional port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServiceUrl } from '../../../adapters/ultimate/index.js';
import { UsageError } from '../../../common/index.js';

test('accepted origins', { timeout: 30_000 }, () => {
  assert.deepEqual(parseServiceUrl('http://127.0.0.1:6464'), { origin: 'http://127.0.0.1:6464', host: '127.0.0.1', port: 6464 });
  assert.equal(parseServiceUrl('http://127.0.0.1').port, 80);
  assert.equal(parseServiceUrl('http://127.0.0.1:6464/').origin, 'http://127.0.0.1:6464', 'a bare trailing / is tolerated');
  assert.equal(parseServiceUrl('http://127.0.0.1:1').port, 1);
  assert.equal(parseServiceUrl('http://127.0.0.1:65535').port, 65535);
});

test('refused origins name what is wrong', { timeout: 30_000 }, () => {
  const cases: Array<[string, RegExp]> = [
    ['https://127.0.0.1:6464', /scheme must be http/],
    ['http://localhost:6464', /host must be 127\.0\.0\.1/],
    ['http://127.0.0.2:6464', /host must be 127\.0\.0\.1/],
    ['http://[::1]:6464', /host must be 127\.0\.0\.1/],
    ['http://0x7f000001:6464', /host must be 127\.0\.0\.1|exactly as an origin/],
    ['http://user:pw@127.0.0.1:6464', /credentials/],
    ['http://user@127.0.0.1:6464', /credentials/],
    ['http://127.0.0.1:6464/v13', /path/],
    ['http://127.0.0.1:6464//', /path/],
    ['http://127.0.0.1:6464?x=1', /query/],
    ['http://127.0.0.1:6464/?', /exactly as an origin|query/],
    ['http://127.0.0.1:6464#frag', /fragment/],
    ['http://127.0.0.1:0', /out of range/],
    ['http://127.0.0.1:65536', /out of range|not a URL/],
    ['http://127.0.0.1:', /exactly as an origin/],
    ['127.0.0.1:6464', /not a URL|scheme/],
    ['', /not a URL/],
    [' http://127.0.0.1:6464', /exactly as an origin/],
    ['HTTP://127.0.0.1:6464', /exactly as an origin/],
  ];
  for (const [url, why] of cases) {
    assert.throws(
      () => parseServiceUrl(url),
      (err: unknown) => {
        assert.ok(err instanceof UsageError, url);
        assert.match(err.message, why, url);
        assert.match(err.message, /expected http:\/\/127\.0\.0\.1/, url);
        return true;
      },
    );
  }
});
