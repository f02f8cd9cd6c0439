import { createLineBatcher } from './index';

describe('createLineBatcher', () => {
  it('writes nothing until the chunk size is reached, then every line so far as one chunk', () => {
    const chunks: string[] = [];
    const batcher = createLineBatcher((chunk) => chunks.push(chunk), 20);
    batcher.write('{"a":1}\n');
    batcher.write('{"b":2}\n');
    expect(chunks).toEqual([]);
    batcher.write('{"c":3}\n'); // 24 characters collected
    expect(chunks).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
    batcher.write('{"d":4}\n');
    expect(chunks).toHaveLength(1);
  });

  it('flush() writes what has collected, in order, and nothing when nothing has', () => {
    const chunks: string[] = [];
    const batcher = createLineBatcher((chunk) => chunks.push(chunk), 1024);
    batcher.flush();
    expect(chunks).toEqual([]);
    batcher.write('one\n');
    batcher.write('two\n');
    batcher.flush();
    batcher.flush();
    batcher.write('three\n');
    batcher.flush();
    expect(chunks).toEqual(['one\ntwo\n', 'three\n']);
  });

  it('keeps every line whole and in order across many chunks', () => {
    const chunks: string[] = [];
    const batcher = createLineBatcher((chunk) => chunks.push(chunk), 100);
    const lines = Array.from({ length: 1000 }, (_, i) => `{"n":${i},"s":"${'é'.repeat(i % 7)}"}\n`);
    for (const line of lines) batcher.write(line);
    batcher.flush();
    expect(chunks.length).toBeGreaterThan(50);
    for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true);
    expect(chunks.join('')).toBe(lines.join(''));
  });
});
