import type { SealedSecret, SecretBox } from '@brand/shared/secrets';

/**
 * What records keeps of a provider's tokens to ask again, later, whether the person is still
 * there: the refresh token when the provider issued one, else the access token and when it
 * expires (userinfo answers while it lives). Sealed with the secret box, the brand id bound
 * in, like the connection's client secret: never stored or logged in clear.
 */
export interface ProviderTokens {
  refreshToken?: string;
  accessToken: string;
  /** Milliseconds since the epoch; absent when the provider did not say. */
  accessExpiresAt?: number;
}

export function sealTokens(box: SecretBox, brandId: string, t: ProviderTokens): SealedSecret {
  return box.seal(JSON.stringify(t), brandId);
}

/** The tokens, or undefined when they cannot be opened (a key retired, a row moved). */
export function openTokens(
  box: SecretBox,
  brandId: string,
  sealed: SealedSecret,
): ProviderTokens | undefined {
  try {
    const t = JSON.parse(box.open(sealed, brandId)) as Partial<ProviderTokens>;
    if (typeof t.accessToken !== 'string') return undefined;
    return {
      accessToken: t.accessToken,
      ...(typeof t.refreshToken === 'string' ? { refreshToken: t.refreshToken } : {}),
      ...(typeof t.accessExpiresAt === 'number' ? { accessExpiresAt: t.accessExpiresAt } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The tokens of a token endpoint answer (openid-client's), as records keeps them. */
export function tokensOf(answer: {
  access_token: string;
  refresh_token?: string;
  expiresIn(): number | undefined;
}): ProviderTokens {
  const expiresIn = answer.expiresIn();
  return {
    accessToken: answer.access_token,
    ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
    ...(expiresIn !== undefined ? { accessExpiresAt: Date.now() + expiresIn * 1000 } : {}),
  };
}
