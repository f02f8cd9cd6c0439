import { generateSigningSecret } from './newSigningSecret';

it('generates whsec_ secrets of 32 base62 characters', () => {
  expect(generateSigningSecret()).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
});
