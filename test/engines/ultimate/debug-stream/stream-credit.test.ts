// The debug stream's flow control between two threads (stream-credit.ts), on one thread's worth of
// logic: a sender paces only to the port a receiver attached, holds back exactly a window ahead of
// what that receiver took, starts over on a new attach, and gives a receiver that takes nothing up
// after its stall limit instead of hanging the device. (Two real threads: virtual-ultimate-thread.test.ts.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StreamCredit } from '../../../../engines/ultimate/index.js';

/** A socket buffer the kernel grants for a window of `n` datagrams (4 KiB a datagram, see stream-credit.ts). */
const bufferFor = (n: number) => n * 4096;

describe('StreamCredit: pacing a stream to its receiver', () => {
  test('nobody attached, or another port attached: a send never waits', () => {
    const credit = new StreamCredit();
    const pacer = credit.pacer(20);
    for (let i = 0; i < 5000; i++) pacer.beforeSend(4000);
    credit.attach(5000, bufferFor(64));
    for (let i = 0; i < 5000; i++) pacer.beforeSend(4000);
    assert.equal(pacer.waits, 0);
  });

  test('a window ahead of the receiver the sender waits; a receiver taking nothing is given up after the stall limit', () => {
    const credit = new StreamCredit();
    const pacer = credit.pacer(30);
    credit.attach(4000, bufferFor(64));
    for (let i = 0; i < 64; i++) pacer.beforeSend(4000);
    assert.equal(pacer.waits, 0, 'the first window goes out without waiting');
    pacer.beforeSend(4000); // the 65th: the receiver took none of the 64
    assert.equal(pacer.waits, 1);
    assert.ok(pacer.waitedMs >= 30, `waited out the stall limit, ${pacer.waitedMs} ms`);
    for (let i = 0; i < 1000; i++) pacer.beforeSend(4000);
    assert.equal(pacer.waits, 1, 'given up on: no more waiting for this receiver');
  });

  test('what the receiver takes makes room: a sender that stays within the window never waits', () => {
    const credit = new StreamCredit();
    const pacer = credit.pacer(1000);
    credit.attach(4000, bufferFor(64));
    for (let i = 0; i < 10_000; i++) {
      pacer.beforeSend(4000);
      if (i >= 40) credit.took(); // the receiver trails by 40 datagrams, inside the window of 64
    }
    assert.equal(pacer.waits, 0);
  });

  test('a new attach starts the count over; a detach by a receiver no longer attached changes nothing', () => {
    const credit = new StreamCredit();
    const pacer = credit.pacer(20);
    credit.attach(4000, bufferFor(32));
    for (let i = 0; i < 32; i++) pacer.beforeSend(4000);
    credit.attach(4001, bufferFor(32)); // the next run's receiver
    credit.detach(4000); // the old one closes after: not the attached port, ignored
    for (let i = 0; i < 32; i++) pacer.beforeSend(4001);
    assert.equal(pacer.waits, 0, 'the 32 sent to the old receiver do not count against the new one');
    pacer.beforeSend(4001);
    assert.equal(pacer.waits, 1, 'the new receiver paces: it took nothing of its window');
    credit.detach(4001);
    for (let i = 0; i < 100; i++) pacer.beforeSend(4001);
    assert.equal(pacer.waits, 1, 'detached: unpaced');
  });

  test("the window follows the receiver's buffer, within 32..1024 datagrams", () => {
    for (const [bytes, window] of [
      [bufferFor(8), 32],
      [bufferFor(200), 200],
      [64 * 1024 * 1024, 1024],
    ] as const) {
      const credit = new StreamCredit();
      const pacer = credit.pacer(10);
      credit.attach(4000, bytes);
      for (let i = 0; i < window; i++) pacer.beforeSend(4000);
      assert.equal(pacer.waits, 0, `${bytes} bytes: ${window} without waiting`);
      pacer.beforeSend(4000);
      assert.equal(pacer.waits, 1, `${bytes} bytes: the ${window + 1}th waits`);
    }
  });

  test('shared memory too small for the credit is refused, naming the size needed', () => {
    assert.throws(() => new StreamCredit(new SharedArrayBuffer(8)), /needs 16 bytes of shared memory, got 8/);
  });
});
