import { MemoryDedupeStore, dedupeKey, processOnce } from './dedupe';
import { sampleEvent } from './sampleEvent';

describe('dedupeKey', () => {
  it('combines the event id and the record id', () => {
    expect(dedupeKey(sampleEvent({ id: 'evt_1', object: { id: 'sub_9' } }))).toBe('evt_1:sub_9');
  });
});

describe('MemoryDedupeStore', () => {
  it('claims a key once', async () => {
    const store = new MemoryDedupeStore();
    expect(await store.claim('a')).toBe(true);
    expect(await store.claim('a')).toBe(false);
    expect(await store.claim('b')).toBe(true);
  });

  it('forgets the oldest key beyond its bound, and only that one', async () => {
    const store = new MemoryDedupeStore(2);
    await store.claim('a');
    await store.claim('b');
    await store.claim('c');
    expect(store.size).toBe(2);
    expect(await store.claim('b')).toBe(false);
    expect(await store.claim('c')).toBe(false);
    expect(await store.claim('a')).toBe(true);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new MemoryDedupeStore(0)).toThrow(RangeError);
  });
});

describe('processOnce', () => {
  it('runs the handler once for the same event and record, whatever the attempt', async () => {
    const store = new MemoryDedupeStore();
    const handler = jest.fn();
    expect(await processOnce(store, sampleEvent(), handler)).toBe('processed');
    expect(await processOnce(store, sampleEvent(), handler)).toBe('duplicate');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('treats another event about the same record as new', async () => {
    const store = new MemoryDedupeStore();
    const handler = jest.fn();
    await processOnce(store, sampleEvent({ id: 'evt_a' }), handler);
    await processOnce(store, sampleEvent({ id: 'evt_b' }), handler);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('releases the key when the handler fails, so the retry is processed', async () => {
    const store = new MemoryDedupeStore();
    const failing = jest.fn().mockRejectedValueOnce(new Error('database down'));
    await expect(processOnce(store, sampleEvent(), failing)).rejects.toThrow('database down');
    expect(await processOnce(store, sampleEvent(), failing)).toBe('processed');
    expect(failing).toHaveBeenCalledTimes(2);
  });

  // A review of 2026-11-29: a repeat during the first run was 'duplicate' (answered 2xx, so the
  // sender stopped); when the first then failed, nothing processed the event again.
  it('answers a repeat while the first runs in_progress, so its failure loses nothing', async () => {
    const store = new MemoryDedupeStore();
    let fail: () => void = () => undefined;
    const slow = () => new Promise<void>((_, reject) => (fail = () => reject(new Error('down'))));
    const first = processOnce(store, sampleEvent(), slow);
    expect(await processOnce(store, sampleEvent(), jest.fn())).toBe('in_progress');
    fail();
    await expect(first).rejects.toThrow('down');
    const handler = jest.fn();
    expect(await processOnce(store, sampleEvent(), handler)).toBe('processed');
    expect(handler).toHaveBeenCalledTimes(1);
  });
});
