import {
  discoveryRefusal,
  providerUrlRefusal,
  STRICT_PROVIDER_POLICY,
  type ProviderPolicy,
} from './providerPolicy';

const ISSUER = new URL('https://login.example.com/tenant');
const LOCAL: ProviderPolicy = { allowLoopback: true, extraOrigins: [] };
const GOOGLE_LIKE: ProviderPolicy = {
  allowLoopback: false,
  extraOrigins: ['https://oauth2.googleapis.com'],
};

const benign = (over: Record<string, unknown> = {}) => ({
  issuer: ISSUER.href,
  authorization_endpoint: 'https://login.example.com/tenant/auth',
  token_endpoint: 'https://login.example.com/tenant/token',
  userinfo_endpoint: 'https://login.example.com/tenant/me',
  jwks_uri: 'https://login.example.com/tenant/jwks',
  end_session_endpoint: 'https://login.example.com/tenant/logout',
  ...over,
});

describe('providerUrlRefusal', () => {
  it('admits https on the issuer origin, and operator-allowed origins', () => {
    expect(
      providerUrlRefusal(new URL('https://login.example.com/x'), ISSUER, STRICT_PROVIDER_POLICY),
    ).toBeUndefined();
    expect(
      providerUrlRefusal(new URL('https://oauth2.googleapis.com/token'), ISSUER, GOOGLE_LIKE),
    ).toBeUndefined();
    expect(
      providerUrlRefusal(
        new URL('https://oauth2.googleapis.com/token'),
        ISSUER,
        STRICT_PROVIDER_POLICY,
      ),
    ).toMatch(/leaves the issuer's origin https:\/\/login\.example\.com .*SSO_EXTRA_ORIGINS/);
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['https://10.255.255.1/token', /Private-Use/],
    ['https://192.168.1.1/token', /Private-Use/],
    ['https://100.64.0.1/token', /CGNAT/],
    ['https://[fd00:ec2::254]/', /cloud metadata/],
    ['https://[fe80::1]/', /Link-Local/],
    ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped/],
    ['https://127.0.0.1:4019/token', /Loopback/],
    ['http://127.0.0.1:4019/token', /must use https/],
    ['https://localhost:4019/token', /loopback name/],
    ['https://login.example.com:6379/', /Redis/],
    ['https://login.example.com:25/', /well-known port/],
  ])('refuses %s even when allowed as an origin', (raw, why) => {
    const url = new URL(raw);
    const policy: ProviderPolicy = { allowLoopback: false, extraOrigins: [url.origin] };
    expect(providerUrlRefusal(url, ISSUER, policy)).toMatch(why);
  });

  it('admits the local provider over http only with the local-only setting, on its own origin', () => {
    const local = new URL('http://127.0.0.1:4010');
    expect(
      providerUrlRefusal(new URL('http://127.0.0.1:4010/token'), local, LOCAL),
    ).toBeUndefined();
    expect(providerUrlRefusal(new URL('http://127.0.0.1:4019/token'), local, LOCAL)).toMatch(
      /leaves the issuer's origin/,
    );
    expect(
      providerUrlRefusal(new URL('http://127.0.0.1:4010/token'), local, STRICT_PROVIDER_POLICY),
    ).toMatch(/must use https/);
    expect(
      providerUrlRefusal(
        new URL('http://127.0.0.2:4010/'),
        new URL('http://127.0.0.2:4010'),
        LOCAL,
      ),
    ).toMatch(/Loopback/);
  });
});

describe('discoveryRefusal', () => {
  it('accepts a document whose endpoints stay on the issuer origin', () => {
    expect(discoveryRefusal(benign(), ISSUER, STRICT_PROVIDER_POLICY)).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', /authorization_endpoint javascript: must use https/],
    ['data:text/html,<script>alert(1)</script>', /authorization_endpoint data: must use https/],
    ['http://login.example.com/auth', /authorization_endpoint .* must use https/],
    ['not a url', /authorization_endpoint is not a URL/],
    [42, /names no authorization_endpoint/],
  ])('refuses the authorization endpoint %s', (endpoint, why) => {
    expect(
      discoveryRefusal(
        benign({ authorization_endpoint: endpoint }),
        ISSUER,
        STRICT_PROVIDER_POLICY,
      ),
    ).toMatch(why);
  });

  it('requires an authorization endpoint', () => {
    const { authorization_endpoint: _gone, ...rest } = benign();
    expect(discoveryRefusal(rest, ISSUER, STRICT_PROVIDER_POLICY)).toMatch(
      /no authorization_endpoint/,
    );
  });

  it.each([
    'token_endpoint',
    'userinfo_endpoint',
    'jwks_uri',
    'end_session_endpoint',
    'revocation_endpoint',
    'pushed_authorization_request_endpoint',
  ])('refuses %s on another origin, on a private address, or never shown with a query', (key) => {
    expect(
      discoveryRefusal(
        benign({ [key]: 'https://evil.example/x?secret=1' }),
        ISSUER,
        STRICT_PROVIDER_POLICY,
      ),
    ).toBe(
      `${key} https://evil.example/x leaves the issuer's origin https://login.example.com (an operator may allow https://evil.example with SSO_EXTRA_ORIGINS)`,
    );
    expect(
      discoveryRefusal(benign({ [key]: 'https://10.0.0.7/x' }), ISSUER, STRICT_PROVIDER_POLICY),
    ).toMatch(/Private-Use/);
  });

  it('checks mTLS endpoint aliases too', () => {
    expect(
      discoveryRefusal(
        benign({ mtls_endpoint_aliases: { token_endpoint: 'https://169.254.169.254/t' } }),
        ISSUER,
        STRICT_PROVIDER_POLICY,
      ),
    ).toMatch(/^mtls_endpoint_aliases\.token_endpoint .*cloud metadata/);
  });
});
