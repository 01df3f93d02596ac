// The UTR2 token mailbox layout placed in C64 memory before a Run Update.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeUtr2Mailbox, encodeUtr2Mailbox, Utr2TokenError } from '../../../../../engines/ultimate/riscv-apps/utr2-mailbox.js';

describe('UTR2 mailbox', () => {
  it('encodes "UTR2", the length and the token, and decodes it back (with a status byte when present)', () => {
    const m = encodeUtr2Mailbox('run-42.abc_DEF');
    assert.deepEqual([...m.subarray(0, 5)], [0x55, 0x54, 0x52, 0x32, 14]);
    assert.deepEqual(decodeUtr2Mailbox(m), { token: 'run-42.abc_DEF' });
    const reply = new Uint8Array([...m, 0x01]);
    assert.deepEqual(decodeUtr2Mailbox(reply), { token: 'run-42.abc_DEF', status: 1 });
  });

  it('refuses empty, long or unprintable tokens; decodes nothing from memory without a mailbox', () => {
    assert.throws(() => encodeUtr2Mailbox(''), Utr2TokenError);
    assert.throws(() => encodeUtr2Mailbox('x'.repeat(65)), /expected 1\.\.64/);
    assert.throws(() => encodeUtr2Mailbox('a b'), /letters, digits/);
    assert.equal(decodeUtr2Mailbox(new Uint8Array(70)), undefined);
    assert.equal(decodeUtr2Mailbox(new Uint8Array([0x55, 0x54, 0x52, 0x32, 0, 0])), undefined);
  });
});
