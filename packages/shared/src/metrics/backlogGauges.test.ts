import { Registry } from 'prom-client';
import { backlogGauges } from './backlogGauges';

const names = {
  waiting: { name: 'thing_waiting', help: 'Things waiting.' },
  oldestAge: { name: 'thing_oldest_age_seconds', help: 'Age of the oldest.' },
};

describe('backlogGauges', () => {
  it('reads the backlog once for both gauges of a scrape', async () => {
    const registry = new Registry();
    let reads = 0;
    backlogGauges(registry, names, () => {
      reads += 1;
      return Promise.resolve({ waiting: 7, oldestAgeSeconds: 12.5 });
    });
    const text = await registry.metrics();
    expect(text).toContain('thing_waiting 7');
    expect(text).toContain('thing_oldest_age_seconds 12.5');
    expect(reads).toBe(1);
    // the next scrape reads afresh
    await registry.metrics();
    expect(reads).toBe(2);
  });

  it('keeps the last values when a read fails, rather than failing the scrape', async () => {
    const registry = new Registry();
    let fail = false;
    backlogGauges(registry, names, () =>
      fail
        ? Promise.reject(new Error('down'))
        : Promise.resolve({ waiting: 3, oldestAgeSeconds: 1 }),
    );
    await registry.metrics();
    fail = true;
    const text = await registry.metrics();
    expect(text).toContain('thing_waiting 3');
  });
});
