import { Campaign, Conversion, Deposit, Link, Payout, Submission } from '@brand/proto/records/v1';
import { RESOURCES } from '@brand/shared/resources';
import { RECORD_FIELDS } from './recordSchemas';

const PROTO_FIELDS = {
  campaigns: Object.keys(Campaign.fromPartial({})),
  submissions: Object.keys(Submission.fromPartial({})),
  payouts: Object.keys(Payout.fromPartial({})),
  deposits: Object.keys(Deposit.fromPartial({})),
  conversions: Object.keys(Conversion.fromPartial({})),
  links: Object.keys(Link.fromPartial({})),
};

describe('public record schemas', () => {
  it.each(RESOURCES)('%s has exactly the fields of its proto message', (resource) => {
    expect([...RECORD_FIELDS[resource]].sort()).toEqual([...PROTO_FIELDS[resource]].sort());
  });
});
