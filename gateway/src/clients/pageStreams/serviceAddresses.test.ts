import { serviceAddresses } from './serviceAddresses';

describe('serviceAddresses', () => {
  it.each([
    ['ipv4:127.0.0.1:1,127.0.0.1:2', ['ipv4:127.0.0.1:1', 'ipv4:127.0.0.1:2']],
    ['ipv6:[::1]:50051', ['ipv6:[::1]:50051']],
    ['127.0.0.1:50051', ['127.0.0.1:50051']],
    ['[::1]:50051', ['[::1]:50051']],
    ['unix:/run/records.sock', ['unix:/run/records.sock']],
  ])('%s is the fixed list %j', async (target, expected) => {
    await expect(serviceAddresses(target)()).resolves.toEqual(expected);
  });

  it.each(['localhost:50051', 'dns:///localhost:50051', 'dns:localhost:50051'])(
    '%s resolves the name to each of its addresses',
    async (target) => {
      await expect(serviceAddresses(target)()).resolves.toContain('ipv4:127.0.0.1:50051');
    },
  );

  it('throws when the name does not resolve (the pool keeps what it had)', async () => {
    await expect(serviceAddresses('no-such-host.invalid:50051')()).rejects.toThrow();
  });
});
