import { renderToString } from 'preact-render-to-string';
import { ClientAddress } from './clientAddress';
import { DataTable } from './dataTable';
import { PostButton } from './postButton';
import { UtcTime } from './utcTime';

// The pieces the console's tables are made of: the table itself, a time, an address and a
// one-button form.
describe('UtcTime', () => {
  it('keeps the date and the time of day whole, free to break only between them', () => {
    expect(renderToString(<UtcTime at="2026-11-29T12:03:41.123Z" />)).toBe(
      '<time datetime="2026-11-29T12:03:41.123Z" class="utc"><span>2026-11-29</span> <span>12:03 UTC</span></time>',
    );
    expect(renderToString(<UtcTime at="2026-11-29T12:03:41.123Z" toSecond />)).toContain(
      '<span>12:03:41 UTC</span>',
    );
  });

  it('says the word it is given, in the hint colour, when there is no time', () => {
    for (const at of [null, undefined, '']) {
      expect(renderToString(<UtcTime at={at} otherwise="Never" />)).toBe(
        '<span class="hint">Never</span>',
      );
      expect(renderToString(<UtcTime at={at} />)).toBe('');
    }
  });
});

describe('PostButton', () => {
  it('posts to its action with the CSRF field, named for the row it acts on', () => {
    const html = renderToString(
      <PostButton
        action="/brands/b1/members/m1/remove"
        csrfToken="tok"
        kind="danger"
        label="Remove a@x.test"
      >
        Remove
      </PostButton>,
    );
    expect(html).toBe(
      '<form method="post" action="/brands/b1/members/m1/remove">' +
        '<input type="hidden" name="_csrf" value="tok"/>' +
        '<button type="submit" class="danger" aria-label="Remove a@x.test">Remove</button></form>',
    );
  });

  it('leaves out what it is not given, and sits in the line when inline', () => {
    expect(
      renderToString(
        <PostButton action="/sign-out" csrfToken="t" inline>
          Sign out
        </PostButton>,
      ),
    ).toBe(
      '<form method="post" action="/sign-out" class="inline"><input type="hidden" name="_csrf" value="t"/><button type="submit">Sign out</button></form>',
    );
  });
});

describe('ClientAddress', () => {
  it('keeps an IPv4 address whole and lets an IPv6 one wrap after a colon only', () => {
    expect(renderToString(<ClientAddress address="127.0.0.1" />)).toBe(
      '<code class="address">127.0.0.1</code>',
    );
    expect(renderToString(<ClientAddress address="2001:db8::1" />)).toBe(
      '<code class="address">2001:<wbr/>db8:<wbr/>:<wbr/>1</code>',
    );
  });

  it('says the word it is given when there is no address, or nothing', () => {
    expect(renderToString(<ClientAddress address="" otherwise="unknown" />)).toBe(
      '<span class="hint">unknown</span>',
    );
    expect(renderToString(<ClientAddress address="" />)).toBe('');
  });
});

describe('PostButton with values', () => {
  it('posts its hidden fields beside the CSRF field, and carries its data attributes', () => {
    expect(
      renderToString(
        <PostButton
          action="/sso/domains/verify"
          csrfToken="t"
          fields={{ domain: 'acme.test' }}
          data={{ brand: 'br_1' }}
        >
          Verify now
        </PostButton>,
      ),
    ).toBe(
      '<form method="post" action="/sso/domains/verify" data-brand="br_1">' +
        '<input type="hidden" name="_csrf" value="t"/>' +
        '<input type="hidden" name="domain" value="acme.test"/>' +
        '<button type="submit">Verify now</button></form>',
    );
  });
});

describe('PostButton on a page that asks to confirm', () => {
  it('puts Cancel beside the button, in the form that carries the CSRF field', () => {
    const html = renderToString(
      <PostButton
        action="/brands/b1/keys/k1/revoke"
        csrfToken="tok"
        kind="danger"
        cancel="/brands/b1/keys"
      >
        Revoke this key
      </PostButton>,
    );
    expect(html).toBe(
      '<form method="post" action="/brands/b1/keys/k1/revoke">' +
        '<input type="hidden" name="_csrf" value="tok"/>' +
        '<div class="actions"><button type="submit" class="danger">Revoke this key</button>' +
        '<a href="/brands/b1/keys">Cancel</a></div></form>',
    );
  });
});

describe('DataTable', () => {
  it('draws a named scrolling box around a captioned table with a header cell for each column', () => {
    const html = renderToString(
      <DataTable label="Keys" caption="Keys, newest first" columns={['Name', 'Status']}>
        <tr>
          <td>ci</td>
          <td>active</td>
        </tr>
      </DataTable>,
    );
    expect(html).toBe(
      '<div class="scroll-x" role="region" aria-label="Keys" tabindex="0"><table>' +
        '<caption class="hint">Keys, newest first</caption>' +
        '<thead><tr><th scope="col">Name</th><th scope="col">Status</th></tr></thead>' +
        '<tbody><tr><td>ci</td><td>active</td></tr></tbody></table></div>',
    );
  });

  it('takes markup for a heading and hides the caption when asked', () => {
    const html = renderToString(
      <DataTable
        label="Domains"
        caption="The domains"
        captionClass="visually-hidden"
        columns={['Domain', <span class="visually-hidden">Action</span>]}
      >
        {[]}
      </DataTable>,
    );
    expect(html).toContain('<caption class="visually-hidden">The domains</caption>');
    expect(html).toContain('<th scope="col"><span class="visually-hidden">Action</span></th>');
    expect(html).toContain('<tbody></tbody>');
  });
});
