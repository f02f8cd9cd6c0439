import { checkGrpcHealth, startStack, type Stack } from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0, recordsEnv: { SHUTDOWN_GRACE_MS: '5000' } });
});
afterAll(() => stack?.close());

describe('records on SIGTERM', () => {
  it('finishes, exits 0 within the grace period and closes its port', async () => {
    const { brand } = await stack.admin.createBrand();
    expect(await checkGrpcHealth(stack.records.address)).toBe('SERVING');

    const started = Date.now();
    const code = await stack.records.stop('SIGTERM', 10_000);
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);

    const messages = stack.records.logs().map((l) => (JSON.parse(l) as { msg?: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'shutdown complete']));
    expect(messages).not.toContain('shutdown step failed');

    await expect(
      stack.admin.listRecordsPage({ brand_id: brand.id, resource: 'links' }),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
