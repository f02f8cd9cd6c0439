/** How a session was opened ("link", "passkey", "sso" from records), in words for a sentence. */
export function signInMethodWords(method: string): string {
  return { link: 'emailed link', passkey: 'passkey', sso: 'single sign-on' }[method] ?? 'unknown';
}
