import { EnvelopeError, MAX_BATCH, readEnvelope } from './envelope';

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });

function rejection(fn: () => unknown): { status: number; code: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof EnvelopeError)
      return {
        status: err.status,
        code: err.response.error.code,
        message: err.response.error.message,
      };
    throw err;
  }
  throw new Error('expected an EnvelopeError');
}

describe('readEnvelope', () => {
  it('accepts a single request and a single notification', () => {
    expect(readEnvelope(ping(1), '2025-11-25')).toEqual({
      batch: false,
      messages: [ping(1)],
      rejected: [],
    });
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(readEnvelope(note, '2025-11-25').messages).toEqual([note]);
  });

  it('ignores a client response (we never send server requests)', () => {
    expect(readEnvelope({ jsonrpc: '2.0', id: 3, result: {} }, '2025-11-25').messages).toEqual([]);
  });

  it.each([
    [{ jsonrpc: '1.0', id: 1, method: 'ping' }, 1],
    [{ id: 2, method: 'ping' }, 2],
    [{ jsonrpc: '2.0', id: 'x' }, 'x'],
    [{ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, null],
    [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
    // an id past 2^53 cannot be answered as it came (JSON.parse rounds it; a review, 2026-11-30)
    [{ jsonrpc: '2.0', id: 2 ** 53 + 2, method: 'ping' }, null],
    [{ jsonrpc: '2.0', id: 1e300, method: 'ping' }, null],
    ['ping', null],
    [42, null],
  ])('refuses %j as -32600, keeping a usable id', (body, id) => {
    try {
      readEnvelope(body, '2025-11-25');
      throw new Error('expected a refusal');
    } catch (err) {
      expect(err).toBeInstanceOf(EnvelopeError);
      expect((err as EnvelopeError).response).toMatchObject({ id, error: { code: -32600 } });
    }
  });

  it('refuses batches in versions without them', () => {
    for (const version of ['2025-06-18', '2025-11-25'] as const) {
      const r = rejection(() => readEnvelope([ping(1)], version));
      expect(r).toMatchObject({ status: 400, code: -32600 });
      expect(r.message).toMatch(new RegExp(`not supported in protocol version ${version}`));
    }
  });

  it('accepts a 2025-03-26 batch and answers its invalid members individually', () => {
    const env = readEnvelope([ping(1), { nope: true }, ping(2)], '2025-03-26');
    expect(env.batch).toBe(true);
    expect(env.messages).toEqual([ping(1), ping(2)]);
    expect(env.rejected).toHaveLength(1);
    expect(env.rejected[0]).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it.each([
    ['an empty batch', []],
    ['an oversized batch', Array.from({ length: MAX_BATCH + 1 }, (_, i) => ping(i))],
    ['initialize in a batch', [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }]],
    ['duplicate ids', [ping(1), ping(1)]],
  ])('refuses %s as a whole', (_name, body) => {
    expect(rejection(() => readEnvelope(body, '2025-03-26'))).toMatchObject({
      status: 400,
      code: -32600,
    });
  });
});
