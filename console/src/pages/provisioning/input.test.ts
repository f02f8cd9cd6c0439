import { MappingForm, TokenForm } from './input';

describe('the Provisioning forms', () => {
  it('say a token name or group too long in sentences naming the field and the limit', () => {
    // zod's own words ("Too big: expected string to have <=100 characters") reached the page
    expect(TokenForm.safeParse({ name: 't'.repeat(101) }).error?.issues[0]?.message).toBe(
      'A token name is at most 100 characters.',
    );
    expect(
      MappingForm.safeParse({ group_key: 'g'.repeat(257), role: 'member' }).error?.issues[0]
        ?.message,
    ).toBe('A group is at most 256 characters.');
    expect(TokenForm.safeParse({ name: 't'.repeat(100) }).success).toBe(true);
  });
});
