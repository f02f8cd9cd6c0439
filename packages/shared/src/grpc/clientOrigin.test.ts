import { Metadata } from '@grpc/grpc-js';
import {
  currentClientOrigin,
  originOfMetadata,
  peerAddress,
  setOriginMetadata,
  withClientOrigin,
} from './clientOrigin';

describe('the client origin of a call', () => {
  it('travels from the console’s request to the service’s call, bounded', async () => {
    const md = new Metadata();
    await withClientOrigin(
      { clientAddress: '203.0.113.7', userAgent: `Probe\u0007/1.0 ${'x'.repeat(600)}` },
      async () => {
        await Promise.resolve();
        setOriginMetadata(md);
      },
    );
    const origin = originOfMetadata(md);
    expect(origin.clientAddress).toBe('203.0.113.7');
    expect(origin.userAgent.startsWith('Probe/1.0 x')).toBe(true);
    expect(origin.userAgent).toHaveLength(512);
    expect(currentClientOrigin()).toEqual({ clientAddress: '', userAgent: '' });
  });

  it('reads the address of a grpc-js peer', () => {
    expect(peerAddress('ipv4:10.0.0.7:52344')).toBe('10.0.0.7');
    expect(peerAddress('ipv6:[::1]:52344')).toBe('::1');
    expect(peerAddress('127.0.0.1:9')).toBe('127.0.0.1');
    expect(peerAddress('unix:/tmp/sock')).toBe('');
  });
});
