import { DeliveryLanes, hangAfterMs } from './deliveryLanes';

const settings = {
  shared: 3,
  slow: 10,
  hanging: 10,
  perReceiver: 2,
  slowAfterMs: 1_000,
  hangAfterMs: 4_000,
  forgetSlowAfterMs: 60_000,
};

describe('DeliveryLanes', () => {
  it('counts a new receiver in the shared budget and probes it one attempt at a time', () => {
    const lanes = new DeliveryLanes(settings);
    expect(lanes.start('rcv_a', 0)).toBe('shared');
    expect(lanes.room(0)).toMatchObject({ shared: 2, slow: 10, hanging: 10, slowReceivers: [] });
    // not heard from yet: nothing more until its first answer
    expect(lanes.room(0).receiverRoom.get('rcv_a')).toBe(0);
    lanes.finish('rcv_a', 'shared', 20, 20);
    lanes.start('rcv_a', 30);
    // answered promptly: its whole share
    expect(lanes.room(30).receiverRoom.get('rcv_a')).toBe(1);
  });

  it('moves an attempt that waits to the slow lane and claims its receiver there from then on', () => {
    const lanes = new DeliveryLanes(settings);
    lanes.start('rcv_hang', 0);
    lanes.start('rcv_hang', 0);
    expect(lanes.room(0).shared).toBe(1);
    lanes.demote('rcv_hang', 1_000);
    lanes.demote('rcv_hang', 1_000);
    // both left the shared budget: it is whole again for everyone else
    expect(lanes.counts()).toEqual({ shared: 0, slow: 2, hanging: 0 });
    expect(lanes.room(1_000).shared).toBe(3);
    // at its per-receiver bound: not offered to the slow lane's claim yet
    expect(lanes.room(1_000).slowReceivers).toEqual([]);
    lanes.finish('rcv_hang', 'slow', 3_000, 4_000);
    expect(lanes.room(4_000).slowReceivers).toEqual(['rcv_hang']);
    expect(lanes.start('rcv_hang', 4_000)).toBe('slow');
  });

  it('moves an attempt that waits past hangAfterMs on to the hanging lane, and its receiver', () => {
    const lanes = new DeliveryLanes(settings);
    lanes.finish('rcv_hang', lanes.start('rcv_hang', 0), 2_000, 2_000); // slow
    lanes.finish('rcv_slow', lanes.start('rcv_slow', 0), 2_000, 2_000); // slow
    expect(lanes.start('rcv_hang', 2_000)).toBe('slow');
    expect(lanes.hang('rcv_hang', 6_000)).toBe('hanging');
    // its slow place is free again for the receivers that answer
    expect(lanes.counts()).toEqual({ shared: 0, slow: 0, hanging: 1 });
    expect(lanes.room(6_000)).toMatchObject({
      slow: 10,
      hanging: 9,
      slowReceivers: ['rcv_slow'],
      hangingReceivers: ['rcv_hang'],
    });
    expect(lanes.start('rcv_hang', 6_000)).toBe('hanging');
    expect(lanes.start('rcv_slow', 6_000)).toBe('slow');
    // a timeout keeps it hanging; an answer within hangAfterMs makes it slow again
    lanes.finish('rcv_hang', 'hanging', 30_000, 32_000);
    expect(lanes.laneOf('rcv_hang', 32_000)).toBe('hanging');
    lanes.finish('rcv_hang', 'hanging', 3_000, 33_000);
    expect(lanes.laneOf('rcv_hang', 33_000)).toBe('slow');
    // and a slow one that times out is found hanging
    lanes.finish('rcv_slow', 'slow', 30_000, 36_000);
    expect(lanes.laneOf('rcv_slow', 36_000)).toBe('hanging');
  });

  it('offers the receivers of a lane in the order they waited for a place, not their age', () => {
    const lanes = new DeliveryLanes(settings);
    // four slow receivers found in this order
    for (const id of ['a', 'b', 'c', 'd']) lanes.finish(id, lanes.start(id, 0), 2_000, 10);
    expect(lanes.room(10).slowReceivers).toEqual(['a', 'b', 'c', 'd']);
    // a and b get places: they go behind c and d
    lanes.start('a', 20);
    lanes.start('b', 20);
    expect(lanes.room(20).slowReceivers).toEqual(['c', 'd', 'a', 'b']);
    // b at its bound (2) leaves the order; when a place of its frees it waits from then on
    lanes.start('b', 30);
    expect(lanes.room(30).slowReceivers).toEqual(['c', 'd', 'a']);
    lanes.finish('b', 'slow', 2_000, 40);
    expect(lanes.room(40).slowReceivers).toEqual(['c', 'd', 'a', 'b']);
    // a, below its bound, keeps its turn when one of its attempts ends
    lanes.finish('a', 'slow', 2_000, 50);
    expect(lanes.room(50).slowReceivers).toEqual(['c', 'd', 'a', 'b']);
  });

  it('counts an attempt hanging after 4 x slowAfterMs, at most half the timeout', () => {
    expect(hangAfterMs(500, 30_000)).toBe(2_000);
    expect(hangAfterMs(300, 15_000)).toBe(1_200);
    expect(hangAfterMs(2_000, 6_000)).toBe(3_000);
    expect(hangAfterMs(5_000, 6_000)).toBe(5_000);
  });

  it('makes a receiver ordinary again after a prompt answer', () => {
    const lanes = new DeliveryLanes(settings);
    lanes.start('rcv_a', 0);
    lanes.demote('rcv_a', 1_000);
    expect(lanes.isSlow('rcv_a', 1_000)).toBe(true);
    lanes.finish('rcv_a', 'slow', 20, 2_000);
    expect(lanes.isSlow('rcv_a', 2_000)).toBe(false);
    expect(lanes.start('rcv_a', 2_000)).toBe('shared');
  });

  it('forgets a slow receiver that was not attempted for a while', () => {
    const lanes = new DeliveryLanes(settings);
    lanes.start('rcv_a', 0);
    lanes.finish('rcv_a', 'shared', 5_000, 5_000);
    expect(lanes.isSlow('rcv_a', 5_000 + 59_999)).toBe(true);
    expect(lanes.isSlow('rcv_a', 5_000 + 60_000)).toBe(false);
    expect(lanes.room(5_000 + 60_000).slowReceivers).toEqual([]);
  });

  it('keeps the bound per receiver across both lanes and frees places on finish', () => {
    const lanes = new DeliveryLanes(settings);
    lanes.finish('rcv_a', lanes.start('rcv_a', 0), 5, 5); // heard from: a prompt answer
    const a = lanes.start('rcv_a', 0);
    lanes.start('rcv_a', 0);
    expect(lanes.room(0).receiverRoom.get('rcv_a')).toBe(0);
    lanes.finish('rcv_a', a, 10, 10);
    expect(lanes.room(10).receiverRoom.get('rcv_a')).toBe(1);
    expect(lanes.counts()).toEqual({ shared: 1, slow: 0, hanging: 0 });
  });

  it('offers no slow-lane room beyond its bound', () => {
    const lanes = new DeliveryLanes({ ...settings, slow: 1, perReceiver: 5 });
    lanes.start('rcv_a', 0);
    lanes.demote('rcv_a', 1_000);
    expect(lanes.room(1_000).slow).toBe(0);
    expect(lanes.start('rcv_a', 1_000)).toBe('slow');
    expect(lanes.room(1_000).slow).toBe(0);
  });

  it('forgets the receivers it has not heard from in a while, however many it served (issue 64)', () => {
    const lanes = new DeliveryLanes(settings);
    for (let i = 0; i < 1_000; i++) {
      lanes.start(`rcv_${i}`, i);
      lanes.finish(`rcv_${i}`, 'shared', i % 2 === 0 ? 10 : 2_000, i + 10);
    }
    expect(lanes.known).toBe(1_000);
    // the first look sweeps (nothing to forget yet); the next sweep is a period later
    lanes.room(30_000);
    expect(lanes.known).toBe(1_000);
    // past it, none was heard from within a period: none is kept
    lanes.room(90_000);
    expect(lanes.known).toBe(0);
    expect(lanes.isSlow('rcv_1', 90_000)).toBe(false);
  });
});
