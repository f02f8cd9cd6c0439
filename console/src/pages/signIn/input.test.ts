import { SignInForm } from './input';

describe('the sign-in form', () => {
  it('says an address too long with its limit', () => {
    expect(
      SignInForm.safeParse({ email: `${'a'.repeat(250)}@b.example` }).error?.issues[0]?.message,
    ).toBe('An email address is at most 254 characters.');
  });
});
