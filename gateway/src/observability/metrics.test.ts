import { GatewayMetrics } from './metrics';

// Drops of the request log were counted by kind alone, so an operator could not tell a flood of
// unattributable refusals from a brand past its share or a full buffer (a review, 2026-11-30).
describe('usage_dropped_total', () => {
  it('counts drops by kind and by reason', async () => {
    const metrics = new GatewayMetrics();
    metrics.usageDrop('log', 3, 'unattributable');
    metrics.usageDrop('log', 1, 'brand_share');
    metrics.usageDrop('counts', 2, 'batch_dropped');
    const text = await metrics.registry.metrics();
    expect(text).toContain('usage_dropped_total{kind="log",reason="unattributable"} 3');
    expect(text).toContain('usage_dropped_total{kind="log",reason="brand_share"} 1');
    expect(text).toContain('usage_dropped_total{kind="counts",reason="batch_dropped"} 2');
  });
});
