import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_PLANS_ADDR,
  DEFAULT_RECORDS_ADDR,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WEBHOOKS_ADDR,
  LOCAL_ENV_FILE,
  LOCAL_SECRETS_FILE,
  parseEnvFile,
  readEnvFile,
  resolveSettings,
  secretFromFile,
  UsageError,
} from './settings';

const FILE = {
  RECORDS_GRPC_ADDR: 'file-host:1',
  PLANS_GRPC_ADDR: 'file-host:4',
  ADMIN_TOKEN: 'file-token',
};

describe('resolveSettings', () => {
  it('prefers flags over environment and file', () => {
    const s = resolveSettings(
      {
        records: 'flag-host:3',
        plans: 'flag-host:5',
        webhooks: 'flag-host:4',
        token: 'flag-token',
        timeout: 500,
      },
      {
        RECORDS_GRPC_ADDR: 'env-host:2',
        PLANS_GRPC_ADDR: 'env-host:6',
        WEBHOOKS_GRPC_ADDR: 'env-host:5',
        ADMIN_TOKEN: 'env-token',
      },
      () => FILE,
    );
    expect(s).toEqual({
      recordsAddr: 'flag-host:3',
      plansAddr: 'flag-host:5',
      webhooksAddr: 'flag-host:4',
      token: 'flag-token',
      timeoutMs: 500,
    });
  });

  it('prefers environment over the file', () => {
    const s = resolveSettings(
      {},
      {
        RECORDS_GRPC_ADDR: 'env-host:2',
        PLANS_GRPC_ADDR: 'env-host:6',
        WEBHOOKS_GRPC_ADDR: 'env-host:5',
        ADMIN_TOKEN: 'env-token',
      },
      () => FILE,
    );
    expect(s).toEqual({
      recordsAddr: 'env-host:2',
      plansAddr: 'env-host:6',
      webhooksAddr: 'env-host:5',
      token: 'env-token',
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
  });

  it('falls back to the file per setting', () => {
    const s = resolveSettings({ records: 'flag-host:3' }, {}, () => FILE);
    expect(s.recordsAddr).toBe('flag-host:3');
    expect(s.plansAddr).toBe('file-host:4');
    expect(s.token).toBe('file-token');
  });

  it('does not read the file when flags and environment say everything', () => {
    const envFile = jest.fn(() => FILE);
    resolveSettings(
      {},
      {
        RECORDS_GRPC_ADDR: 'a:1',
        PLANS_GRPC_ADDR: 'b:2',
        WEBHOOKS_GRPC_ADDR: 'c:3',
        ADMIN_TOKEN: 't',
      },
      envFile,
    );
    expect(envFile).not.toHaveBeenCalled();
  });

  it('reads the file at most once', () => {
    const envFile = jest.fn(() => ({}));
    resolveSettings({}, {}, envFile);
    expect(envFile).toHaveBeenCalledTimes(1);
  });

  it('uses the default address and no token when nothing is set', () => {
    expect(resolveSettings({}, {}, () => ({}))).toEqual({
      recordsAddr: DEFAULT_RECORDS_ADDR,
      plansAddr: DEFAULT_PLANS_ADDR,
      webhooksAddr: DEFAULT_WEBHOOKS_ADDR,
      token: undefined,
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
  });

  it('treats empty environment variables as unset', () => {
    const s = resolveSettings({}, { RECORDS_GRPC_ADDR: '  ', ADMIN_TOKEN: '' }, () => FILE);
    expect(s.recordsAddr).toBe('file-host:1');
    expect(s.token).toBe('file-token');
  });
});

describe('parseEnvFile', () => {
  it('reads assignments and skips comments, blanks and junk', () => {
    const text = [
      '# comment',
      '',
      'A=1',
      'export B = two words ',
      'C="quoted # not a comment"',
      "D='single'",
      'E=value # trailing comment',
      'not an assignment',
      'F=',
    ].join('\n');
    expect(parseEnvFile(text)).toEqual({
      A: '1',
      B: 'two words',
      C: 'quoted # not a comment',
      D: 'single',
      E: 'value',
      F: '',
    });
  });

  it('handles CRLF line endings', () => {
    expect(parseEnvFile('A=1\r\nB=2\r\n')).toEqual({ A: '1', B: '2' });
  });
});

describe('readEnvFile', () => {
  it("finds the repo's config/local.env from the CLI's own files", () => {
    expect(LOCAL_ENV_FILE).toBe(join(__dirname, '..', '..', 'config', 'local.env'));
    const vars = readEnvFile();
    expect(vars.RECORDS_GRPC_ADDR).toMatch(/^[\w.-]+:\d+$/);
    expect(vars.PLANS_GRPC_ADDR).toBe('127.0.0.1:50052');
    // secrets are generated into .local/secrets.env on first `npm run up`, never committed
    expect(vars.ADMIN_TOKEN).toBeUndefined();
    expect(vars.INTERNAL_TOKEN).toBeUndefined();
    expect(vars.CURSOR_SECRET).toBeUndefined();
  });

  it('takes generated secrets from .local/secrets.env, ignored by git', () => {
    expect(LOCAL_SECRETS_FILE).toBe(join(__dirname, '..', '..', '.local', 'secrets.env'));
  });

  it('returns an empty object for a missing file', () => {
    expect(readEnvFile(join(__dirname, 'no-such-file.env'))).toEqual({});
  });
});

describe('the admin token from a file (kept off the command line)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brandctl-token-'));
  const file = join(dir, 'admin.token');
  writeFileSync(file, 'file-held-token-0123456789abcdef-0123\n');

  it('reads --admin-token-file, then ADMIN_TOKEN, then ADMIN_TOKEN_FILE, its newline stripped', () => {
    expect(
      resolveSettings({ adminTokenFile: file }, { ADMIN_TOKEN: 'env-token' }, () => ({})).token,
    ).toBe('file-held-token-0123456789abcdef-0123');
    expect(
      resolveSettings({}, { ADMIN_TOKEN: 'env-token', ADMIN_TOKEN_FILE: file }, () => ({})).token,
    ).toBe('env-token');
    expect(resolveSettings({}, { ADMIN_TOKEN_FILE: file }, () => ({})).token).toBe(
      'file-held-token-0123456789abcdef-0123',
    );
  });

  it('names a file it cannot read', () => {
    expect(() => resolveSettings({ adminTokenFile: join(dir, 'missing') }, {}, () => ({}))).toThrow(
      /cannot read .*missing/,
    );
  });
});

describe('the admin token is checked where it is read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brandctl-token-check-'));
  const write = (name: string, text: string | Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const SECRET = 'Sup3rS3cretValue';
  const refusal = (fn: () => unknown): Error => {
    try {
      fn();
    } catch (err) {
      return err as Error;
    }
    throw new Error('expected a refusal');
  };

  it.each([
    ['a control character in the file', { adminTokenFile: write('ctl', `${SECRET}\x01\n`) }, {}],
    ['a second line in the file', { adminTokenFile: write('two', `${SECRET}\nmore\n`) }, {}],
    ['a tab in --token', { token: `${SECRET}\tb` }, {}],
    ['a newline in ADMIN_TOKEN', {}, { ADMIN_TOKEN: `${SECRET}\nx` }],
    ['a space inside the file', { adminTokenFile: write('sp', `${SECRET} x\n`) }, {}],
  ])('refuses %s as a usage error that names the source, never the value', (_, flags, env) => {
    const err = refusal(() => resolveSettings(flags, env, () => ({})));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/--admin-token-file|--token|ADMIN_TOKEN/);
    expect(err.message).not.toContain(SECRET);
  });

  it('strips one trailing newline or CRLF from a file', () => {
    const lf = write('lf', `${SECRET}\n`);
    const crlf = write('crlf', `${SECRET}\r\n`);
    expect(resolveSettings({ adminTokenFile: lf }, {}, () => ({})).token).toBe(SECRET);
    expect(resolveSettings({ adminTokenFile: crlf }, {}, () => ({})).token).toBe(SECRET);
  });

  it('refuses a token longer than 1 KB', () => {
    const err = refusal(() => resolveSettings({ token: 'a'.repeat(1025) }, {}, () => ({})));
    expect(err).toBeInstanceOf(UsageError);
    expect(resolveSettings({ token: 'a'.repeat(1024) }, {}, () => ({})).token).toHaveLength(1024);
  });

  it.each([
    ['an empty --admin-token-file', { adminTokenFile: write('empty', '') }, {}],
    ['a --admin-token-file of one newline', { adminTokenFile: write('nl', '\n') }, {}],
    ['an empty --token', { token: '' }, {}],
    ['an empty ADMIN_TOKEN_FILE', {}, { ADMIN_TOKEN_FILE: join(dir, 'empty') }],
  ])('refuses %s rather than fall back to the checkout token', (_, flags, env) => {
    const err = refusal(() => resolveSettings(flags, env, () => FILE));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/empty/);
  });
});

describe('secret files are read with a bound', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brandctl-big-'));

  it('refuses a file larger than the bound without reading all of it', () => {
    const big = join(dir, 'big');
    writeFileSync(big, 'a'.repeat(1024 * 1024));
    expect(() => secretFromFile(big)).toThrow(/larger than/);
  });

  it('stops reading an endless file (/dev/zero)', () => {
    expect(() => secretFromFile('/dev/zero')).toThrow(/larger than/);
  });

  it('refuses a directory, naming it', () => {
    expect(() => secretFromFile(dir)).toThrow(new RegExp(`${dir}.*directory`));
  });
});

describe('service addresses', () => {
  it.each(['127.0.0.1:99999', 'notahost', 'host:0', 'host:', ':50051', 'a b:1', ''])(
    'refuses --records %j as a usage error',
    (records) => {
      expect(() => resolveSettings({ records }, {}, () => ({}))).toThrow(UsageError);
    },
  );

  it('accepts host:port and [v6]:port', () => {
    expect(resolveSettings({ records: 'h.example:1' }, {}, () => ({})).recordsAddr).toBe(
      'h.example:1',
    );
    expect(resolveSettings({ plans: '[::1]:65535' }, {}, () => ({})).plansAddr).toBe('[::1]:65535');
  });

  it('accepts the gRPC target forms the helm chart gives (dns:///host:port, unix:path)', () => {
    const target = 'dns:///brand-records-records-headless.ns.svc.cluster.local:50051';
    expect(resolveSettings({}, { RECORDS_GRPC_ADDR: target }, () => ({})).recordsAddr).toBe(target);
    expect(resolveSettings({ records: 'dns:h:1' }, {}, () => ({})).recordsAddr).toBe('dns:h:1');
    expect(resolveSettings({ records: 'unix:/run/r.sock' }, {}, () => ({})).recordsAddr).toBe(
      'unix:/run/r.sock',
    );
    expect(() => resolveSettings({ records: 'dns:///h:99999' }, {}, () => ({}))).toThrow(
      UsageError,
    );
  });

  it('refuses a bad address from the environment, naming the variable', () => {
    expect(() => resolveSettings({}, { WEBHOOKS_GRPC_ADDR: 'x:70000' }, () => ({}))).toThrow(
      /WEBHOOKS_GRPC_ADDR/,
    );
  });
});
