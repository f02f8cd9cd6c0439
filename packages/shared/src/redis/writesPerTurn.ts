import type { Redis } from 'ioredis';

/** The connections whose writes are held to the end of the current turn. */
const held = new WeakSet<object>();

/**
 * Holds the client's writes until the end of the event loop's current turn (cork now, uncork
 * in setImmediate, which runs once the turn's I/O callbacks are done), so the commands of every
 * request the turn handles leave in one write instead of one each. Node batches an HTTP/2
 * session's frames the same way; ioredis writes each command as it is issued, and on the walk
 * the gateway's one EVALSHA a request was 11.8 % of its CPU profile (the write wakes Redis;
 * BENCHMARKS.md, issue 46). Its auto-pipelining does not help there: it flushes on
 * process.nextTick, which runs after each request's callback. A command waits at most for the
 * rest of the turn (microseconds); its timeout runs from when it was issued, as before.
 */
export function writeAtEndOfTurn(client: Redis): void {
  // undefined until the client first connects
  const stream = client.stream as Redis['stream'] | undefined;
  if (stream === undefined || held.has(stream)) return;
  held.add(stream);
  stream.cork();
  setImmediate(() => {
    held.delete(stream);
    stream.uncork();
  });
}
