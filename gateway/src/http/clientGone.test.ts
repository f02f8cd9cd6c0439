import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { ClientGone } from './clientGone';

function response(): EventEmitter & { writableFinished: boolean } {
  return Object.assign(new EventEmitter(), { writableFinished: false });
}

describe('ClientGone', () => {
  it('aborts and calls its listeners once when the response closes unfinished', () => {
    const res = response();
    const gone = new ClientGone(res as unknown as ServerResponse);
    const calls: string[] = [];
    gone.addEventListener('abort', () => calls.push('a'));
    gone.addEventListener('abort', () => calls.push('b'));
    res.emit('close');
    res.emit('close');
    expect(gone.aborted).toBe(true);
    expect(calls).toEqual(['a', 'b']);
  });

  it('stays quiet when the answer was written before the close', () => {
    const res = response();
    const gone = new ClientGone(res as unknown as ServerResponse);
    const listener = jest.fn();
    gone.addEventListener('abort', listener);
    res.writableFinished = true;
    res.emit('close');
    expect(gone.aborted).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('does not call a removed listener', () => {
    const res = response();
    const gone = new ClientGone(res as unknown as ServerResponse);
    const kept = jest.fn();
    const removed = jest.fn();
    gone.addEventListener('abort', removed);
    gone.addEventListener('abort', kept);
    gone.removeEventListener('abort', removed);
    res.emit('close');
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
  });
});
