import { originPolicy } from './originPolicy';

describe('originPolicy', () => {
  it('allows nothing by default (production)', () => {
    const allowed = originPolicy([]);
    expect(allowed('http://localhost:6274')).toBe(false);
    expect(allowed('https://app.example.com')).toBe(false);
  });

  it('allows exactly the listed origins', () => {
    const allowed = originPolicy(['https://app.example.com']);
    expect(allowed('https://app.example.com')).toBe(true);
    expect(allowed('https://app.example.com.evil.test')).toBe(false);
    expect(allowed('http://app.example.com')).toBe(false);
  });

  it('allows any loopback origin with "loopback" (the MCP Inspector, conformance suites)', () => {
    const allowed = originPolicy(['loopback']);
    for (const o of [
      'http://localhost:6274',
      'http://127.0.0.1:6274',
      'http://[::1]:3000',
      'https://localhost',
    ]) {
      expect(allowed(o)).toBe(true);
    }
    for (const o of [
      'http://localhost.evil.test',
      'http://127.0.0.2:80',
      'http://evil.test',
      'null',
      'file://',
      'http://localhost:6274/path',
    ]) {
      expect(allowed(o)).toBe(false);
    }
  });
});
