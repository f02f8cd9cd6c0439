import { PlacesByKey } from './placesByKey';

const refuse = (): never => {
  throw new Error('full');
};

/** A piece of work that ends when told to. */
function held<T>(value: T) {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { work: async () => (await done, value), end };
}

describe('PlacesByKey', () => {
  it('runs up to its places per key, refuses past them, and other keys are not counted', async () => {
    const places = new PlacesByKey(2);
    const a = held('a');
    const b = held('b');
    const first = places.run('br_1', a.work, refuse);
    const second = places.run('br_1', b.work, refuse);
    await expect(places.run('br_1', () => Promise.resolve('c'), refuse)).rejects.toThrow('full');
    await expect(places.run('br_2', () => Promise.resolve('other brand'), refuse)).resolves.toBe(
      'other brand',
    );
    a.end();
    b.end();
    await expect(Promise.all([first, second])).resolves.toEqual(['a', 'b']);
  });

  it('gives a place back when its work fails, without running refused work', async () => {
    const places = new PlacesByKey(1);
    await expect(
      places.run('br_1', () => Promise.reject(new Error('boom')), refuse),
    ).rejects.toThrow('boom');
    const refusedWork = jest.fn(() => Promise.resolve('never'));
    const h = held('kept');
    const running = places.run('br_1', h.work, refuse);
    await expect(places.run('br_1', refusedWork, refuse)).rejects.toThrow('full');
    expect(refusedWork).not.toHaveBeenCalled();
    h.end();
    await expect(running).resolves.toBe('kept');
    await expect(places.run('br_1', () => Promise.resolve('again'), refuse)).resolves.toBe('again');
  });
});
