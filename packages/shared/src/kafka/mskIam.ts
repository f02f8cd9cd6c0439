import type { OauthbearerProviderResponse } from 'kafkajs';

/**
 * The OAUTHBEARER token provider of AWS MSK IAM: a token signed with the credentials of the
 * AWS default chain (IRSA or EKS Pod Identity on Kubernetes, the instance role, environment
 * variables), asked for on every (re)authentication; tokens live 15 minutes and kafkajs
 * re-authenticates a connection before its session ends, so none outlives its token. The
 * signer (and the AWS SDK's credential chain under it) is loaded on the first token, so a
 * process on another mechanism never pays for loading it.
 */
export function mskIamTokenProvider(region: string): () => Promise<OauthbearerProviderResponse> {
  return async () => {
    const { generateAuthToken } = await import('aws-msk-iam-sasl-signer-js');
    const { token } = await generateAuthToken({ region });
    return { value: token };
  };
}
