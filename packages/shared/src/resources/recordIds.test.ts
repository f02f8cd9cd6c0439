import { newId } from '../ids';
import { MAX_RECORD_ID_LENGTH, recordIdShape } from './index';

describe('recordIdShape', () => {
  it('finds every freshly minted id a candidate of its own resource, and elsewhere under the others', () => {
    const id = newId('payout');
    expect(recordIdShape('payouts', id)).toBe('candidate');
    expect(recordIdShape('campaigns', id)).toBe('elsewhere');
    expect(recordIdShape('links', newId('link'))).toBe('candidate');
    expect(recordIdShape('conversions', newId('conversion'))).toBe('candidate');
  });

  it.each([
    ['po_', 'elsewhere'],
    ['po_abc_def', 'elsewhere'],
    ['PO_abc', 'elsewhere'],
    ['abc', 'elsewhere'],
    ['_', 'elsewhere'],
    [`po_${'a'.repeat(MAX_RECORD_ID_LENGTH - 3)}`, 'candidate'],
    [`po_${'a'.repeat(MAX_RECORD_ID_LENGTH - 2)}`, 'malformed'],
    ['', 'malformed'],
    ['po_abc.def', 'malformed'],
    ['po_abc-def', 'malformed'],
    ['po_ä', 'malformed'],
    ["po_x' or 1=1 --", 'malformed'],
    ['po_abc\u0000', 'malformed'],
  ])('%j under payouts is %s', (id, shape) => {
    expect(recordIdShape('payouts', id)).toBe(shape);
  });
});
