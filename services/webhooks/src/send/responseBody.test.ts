import { BODY_KEEP_BYTES, excerptOf, keptHeaders, readBounded, storableText } from './responseBody';

/** A body that yields `chunks` and records whether it was destroyed and how much was pulled. */
function body(chunks: Buffer[]) {
  const state = { pulled: 0, destroyed: false };
  return {
    state,
    stream: {
      async *[Symbol.asyncIterator]() {
        for (const c of chunks) {
          state.pulled += 1;
          yield await Promise.resolve(c);
        }
      },
      destroy() {
        state.destroyed = true;
      },
    },
  };
}

describe('readBounded', () => {
  it('keeps a short body whole and counts it', async () => {
    const b = body([Buffer.from('{"error":'), Buffer.from('"bad"}')]);
    const r = await readBounded(b.stream, undefined);
    expect(r.kept.toString()).toBe('{"error":"bad"}');
    expect(r).toMatchObject({ truncated: false, bytes: 15 });
    expect(b.state.destroyed).toBe(true);
  });

  it('stops after the first 4 KB of a huge body and reports its declared size', async () => {
    const chunk = Buffer.alloc(65_536, 0x61);
    const b = body(Array.from({ length: 800 }, () => chunk)); // 50 MB
    const r = await readBounded(b.stream, String(800 * 65_536));
    expect(r.kept.length).toBe(BODY_KEEP_BYTES);
    expect(r).toMatchObject({ truncated: true, bytes: 52_428_800 });
    expect(b.state.pulled).toBe(1);
    expect(b.state.destroyed).toBe(true);
  });

  it('says the size is unknown when it was neither declared nor read to the end', async () => {
    const b = body(Array.from({ length: 3 }, () => Buffer.alloc(4_000)));
    expect((await readBounded(b.stream, undefined)).bytes).toBe(-1);
  });
});

describe('storableText', () => {
  it('replaces invalid UTF-8 and NUL, which a text column refuses', () => {
    expect(storableText(Buffer.from([0x61, 0x00, 0xff, 0x62]))).toBe('a\uFFFD\uFFFDb');
  });
});

describe('keptHeaders', () => {
  it('keeps content-type, content-length and retry-after, bounded, in that order', () => {
    expect(
      keptHeaders({
        'retry-after': '120',
        'set-cookie': ['a=b'],
        'content-type': 'text/html',
        'x-long': 'x',
        'content-length': '5',
      }),
    ).toEqual([
      { name: 'content-type', value: 'text/html' },
      { name: 'content-length', value: '5' },
      { name: 'retry-after', value: '120' },
    ]);
    expect(keptHeaders({ 'content-type': 'x'.repeat(5_000) })[0]!.value).toHaveLength(512);
  });
});

describe('excerptOf', () => {
  it('folds whitespace and keeps 200 characters', () => {
    expect(excerptOf('  a\n\n b  ')).toBe('a b');
    expect(excerptOf(' \n ')).toBeUndefined();
    expect(excerptOf('x'.repeat(300))).toHaveLength(200);
  });
});
