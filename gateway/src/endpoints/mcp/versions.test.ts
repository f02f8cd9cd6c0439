import { allowsBatches, isSupportedVersion, negotiateVersion } from './versions';

describe('protocol versions', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('echoes a supported version %s', (v) => {
    expect(negotiateVersion(v)).toBe(v);
  });

  it.each(['2024-11-05', '2024-10-07', '1999-01-01', '', 'latest'])(
    'answers an unsupported version %j with the newest',
    (v) => {
      expect(negotiateVersion(v)).toBe('2025-11-25');
      expect(isSupportedVersion(v)).toBe(false);
    },
  );

  it('allows batches only in 2025-03-26', () => {
    expect(allowsBatches('2025-03-26')).toBe(true);
    expect(allowsBatches('2025-06-18')).toBe(false);
    expect(allowsBatches('2025-11-25')).toBe(false);
  });
});
