import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../usageError';
import { openPosition } from './followPosition';

describe('openPosition --checkpoint', () => {
  it('refuses a directory as a usage error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'brandctl-checkpoint-'));
    const opened = openPosition({ checkpoint: dir, filters: {} }, () => undefined);
    await expect(opened).rejects.toThrow(UsageError);
    await expect(opened).rejects.toThrow(`--checkpoint ${dir} is a directory; give a file path`);
  });
});
