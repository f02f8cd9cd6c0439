import { generateAuthToken } from 'aws-msk-iam-sasl-signer-js';
import type { OauthbearerProviderResponse } from 'kafkajs';

/**
 * The OAUTHBEARER token provider of AWS MSK IAM: a token signed with the credentials of the
 * AWS default chain (IRSA or EKS Pod Identity on Kubernetes, the instance role, environment
 * variables), asked for on every (re)authentication; tokens live 15 minutes and kafkajs
 * re-authenticates a connection before its session ends, so none outlives its token.
 */
export function mskIamTokenProvider(region: string): () => Promise<OauthbearerProviderResponse> {
  return async () => {
    const { token } = await generateAuthToken({ region });
    return { value: token };
  };
}
