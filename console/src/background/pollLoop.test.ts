import { createLogger } from '@brand/shared/logger';
import { startPollLoop, type PollTurn } from './pollLoop';

const log = createLogger({ service: 'test', level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startPollLoop', () => {
  it('goes again at once after a full batch, and waits the interval after a short one', async () => {
    const started: number[] = [];
    const claims = [5, 5, 2, 0];
    const turn: PollTurn = () => {
      started.push(Date.now());
      return Promise.resolve(claims.shift() ?? 0);
    };
    const loop = startPollLoop(turn, { intervalMs: 1_000, batchSize: 5, log, what: 'test' });
    await sleep(150);
    await loop.stop();
    // Two full batches and the short one ran back to back; the fourth waits for the interval.
    expect(started).toHaveLength(3);
    expect(started[2]! - started[0]!).toBeLessThan(100);
  });

  it('survives a failing turn and tries again later, waiting longer while it keeps failing', async () => {
    const started: number[] = [];
    const turn: PollTurn = () => {
      started.push(Date.now());
      return Promise.reject(new Error('records unreachable'));
    };
    const loop = startPollLoop(turn, { intervalMs: 40, batchSize: 5, log, what: 'test' });
    await sleep(500);
    await loop.stop();
    // Pauses of 40, 80, 160, 320 ms: turns at 0, 40, 120 and 280 ms, not the 12 a fixed
    // interval would run (timers never fire early, so the doubled pause is a floor).
    expect(started.length).toBeGreaterThanOrEqual(3);
    expect(started.length).toBeLessThanOrEqual(4);
    expect(started[2]! - started[1]!).toBeGreaterThanOrEqual(79);
  });

  it('stops: the turn in flight finishes, and no turn starts after', async () => {
    let turns = 0;
    let finished = 0;
    let toldToStop = false;
    const turn: PollTurn = async (stopping) => {
      turns += 1;
      await sleep(100);
      finished += 1;
      toldToStop = stopping();
      return 5;
    };
    const loop = startPollLoop(turn, { intervalMs: 10, batchSize: 5, log, what: 'test' });
    await sleep(20);
    await loop.stop();
    expect({ turns, finished, toldToStop }).toEqual({ turns: 1, finished: 1, toldToStop: true });
    await sleep(50);
    expect(turns).toBe(1);
  });
});
