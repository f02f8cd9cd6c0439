import type { Lane, LaneRoom } from './deliveryLanes';
import { DeliveryFeed, type FedDelivery } from './deliveryFeed';

const AT = '2026-11-25T10:00:00.000Z';
const fed = (receiverId: string, n: number): FedDelivery[] =>
  Array.from({ length: n }, (_, i) => ({ id: `dlv_${receiverId}_${i}`, eventAt: AT, receiverId }));
const room = (
  shared: number,
  slow = 0,
  receiverRoom: [string, number][] = [],
  order: Pick<LaneRoom, 'slowReceivers' | 'hangingReceivers'> = {
    slowReceivers: [],
    hangingReceivers: [],
  },
  hanging = 0,
): LaneRoom => ({
  shared,
  slow,
  hanging,
  ...order,
  receiverRoom: new Map(receiverRoom),
});
const ids = (ds: FedDelivery[]) => ds.map((d) => d.id);
const notSlow = (): Lane => 'shared';

describe('DeliveryFeed', () => {
  it('serves receivers round-robin, each in the order stored', () => {
    const feed = new DeliveryFeed({ max: 100, maxPerReceiver: 100 });
    feed.offer([...fed('a', 3), ...fed('b', 1), ...fed('c', 2)]);
    const pick = feed.take(room(5), 4, notSlow);
    expect(ids(pick.shared)).toEqual(['dlv_a_0', 'dlv_b_0', 'dlv_c_0', 'dlv_a_1', 'dlv_c_1']);
    expect(feed.size).toBe(1);
  });

  it('keeps each receiver within its own room and the default per receiver', () => {
    const feed = new DeliveryFeed({ max: 100, maxPerReceiver: 100 });
    feed.offer([...fed('a', 5), ...fed('b', 5)]);
    // a has one more place (attempts in flight), b none yet in flight: perReceiver (2)
    const pick = feed.take(room(10, 0, [['a', 1]]), 2, notSlow);
    expect(ids(pick.shared)).toEqual(['dlv_a_0', 'dlv_b_0', 'dlv_b_1']);
    expect(
      feed.take(
        room(10, 0, [
          ['a', 0],
          ['b', 0],
        ]),
        2,
        notSlow,
      ).shared,
    ).toEqual([]);
    expect(feed.size).toBe(7);
  });

  it('starts the next take after the receivers it served', () => {
    const feed = new DeliveryFeed({ max: 100, maxPerReceiver: 100 });
    feed.offer([...fed('a', 3), ...fed('b', 3), ...fed('c', 3)]);
    expect(ids(feed.take(room(1), 4, notSlow).shared)).toEqual(['dlv_a_0']);
    expect(ids(feed.take(room(1), 4, notSlow).shared)).toEqual(['dlv_b_0']);
    expect(ids(feed.take(room(2), 4, notSlow).shared)).toEqual(['dlv_c_0', 'dlv_a_1']);
  });

  it("puts a slow receiver's deliveries in the slow lane's room, never the shared budget's", () => {
    const feed = new DeliveryFeed({ max: 100, maxPerReceiver: 100 });
    feed.offer([...fed('slow', 3), ...fed('fast', 3)]);
    const laneOf = (id: string): Lane => (id === 'slow' ? 'slow' : 'shared');
    const order = { slowReceivers: ['slow'], hangingReceivers: [] };
    const none = feed.take(room(10, 0, [], order), 4, laneOf);
    expect(ids(none.slow)).toEqual([]);
    expect(ids(none.shared)).toEqual(['dlv_fast_0', 'dlv_fast_1', 'dlv_fast_2']);
    const pick = feed.take(room(10, 2, [], order), 4, laneOf);
    expect(ids(pick.slow)).toEqual(['dlv_slow_0', 'dlv_slow_1']);
    expect(pick.shared).toEqual([]);
  });

  it('serves the slow and hanging lanes in the order the room gives, each its own places', () => {
    const feed = new DeliveryFeed({ max: 100, maxPerReceiver: 100 });
    // the hanging receivers' deliveries came first; b, slow, waited longest for a place
    feed.offer([...fed('h1', 3), ...fed('h2', 3), ...fed('a', 3), ...fed('b', 3)]);
    const laneOf = (id: string): Lane => (id.startsWith('h') ? 'hanging' : 'slow');
    const order = { slowReceivers: ['b', 'a'], hangingReceivers: ['h2', 'h1'] };
    const pick = feed.take(room(10, 3, [], order, 1), 4, laneOf);
    expect(ids(pick.slow)).toEqual(['dlv_b_0', 'dlv_a_0', 'dlv_b_1']);
    expect(ids(pick.hanging)).toEqual(['dlv_h2_0']);
    expect(pick.shared).toEqual([]);
  });

  it('drops what is over its bounds and says so once', () => {
    const feed = new DeliveryFeed({ max: 5, maxPerReceiver: 3 });
    feed.offer(fed('a', 4));
    expect(feed.size).toBe(3);
    expect(feed.takeDropped()).toBe(true);
    expect(feed.takeDropped()).toBe(false);
    feed.offer(fed('b', 2));
    expect(feed.takeDropped()).toBe(false);
    feed.offer(fed('c', 1));
    expect(feed.size).toBe(5);
    expect(feed.takeDropped()).toBe(true);
  });

  it('forgets what a scan claimed and counts what it held', () => {
    const feed = new DeliveryFeed({ max: 100, maxPerReceiver: 100 });
    feed.offer([...fed('a', 3), ...fed('b', 1)]);
    const claimed = [
      { id: 'dlv_a_1', receiver_id: 'a' },
      { id: 'dlv_b_0', receiver_id: 'b' },
      { id: 'dlv_z_9', receiver_id: 'z' },
    ];
    expect(feed.forget(claimed)).toEqual(new Set(['dlv_a_1', 'dlv_b_0']));
    expect(feed.size).toBe(2);
    expect(ids(feed.take(room(10), 4, notSlow).shared)).toEqual(['dlv_a_0', 'dlv_a_2']);
    expect(feed.size).toBe(0);
  });
});
