import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { writeAtEndOfTurn } from './writesPerTurn';

/** A connection that records each write it is asked to make, as the chunks it carried. */
class RecordingStream extends Writable {
  readonly writes: string[][] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.writes.push([chunk.toString()]);
    done();
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, done: () => void): void {
    this.writes.push(chunks.map((c) => c.chunk.toString()));
    done();
  }
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Issues a command as the limiter does: the hold first, then ioredis's write. */
function issue(client: Redis, stream: RecordingStream, command: string): void {
  writeAtEndOfTurn(client);
  stream.write(command);
}

describe('writeAtEndOfTurn', () => {
  it('sends the commands of one turn in one write, at the end of the turn', async () => {
    const stream = new RecordingStream();
    const client = { stream } as unknown as Redis;
    issue(client, stream, 'EVALSHA a');
    issue(client, stream, 'EVALSHA b');
    await Promise.resolve(); // a later request of the same turn, after a microtask
    issue(client, stream, 'EVALSHA c');
    expect(stream.writes).toEqual([]);
    await endOfTurn();
    expect(stream.writes).toEqual([['EVALSHA a', 'EVALSHA b', 'EVALSHA c']]);
  });

  it('holds each turn apart: the next turn has its own write', async () => {
    const stream = new RecordingStream();
    const client = { stream } as unknown as Redis;
    issue(client, stream, 'one');
    await endOfTurn();
    issue(client, stream, 'two');
    issue(client, stream, 'three');
    await endOfTurn();
    expect(stream.writes).toEqual([['one'], ['two', 'three']]);
  });

  it('does nothing for a client without a connection yet', () => {
    expect(() => writeAtEndOfTurn({} as unknown as Redis)).not.toThrow();
  });
});
