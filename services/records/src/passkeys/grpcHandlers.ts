import type { ConsolePasskeyServiceServer, Passkey } from '@brand/proto/access/v1/passkeys';
import type { RpcBuilder } from '@brand/shared/grpc';
import type { SessionDeps } from '../sessions/sessionDeps';
import { toOpenedResponse } from '../sessions/openSession';
import { boundedClient } from '../sessions/signInClient';
import { finishPasskeySignIn, beginPasskeySignIn } from './passkeySignIn';
import type { PasskeyRow } from './passkeyRepo';
import {
  beginRegistration,
  finishRegistration,
  listPasskeys,
  removePasskey,
} from './passkeyService';
import { setBrandSignInPolicy } from '../signInPolicy/setBrandSignInPolicy';

const toPasskey = (p: PasskeyRow): Passkey => ({
  id: p.id,
  name: p.name,
  created_at: p.created_at,
  last_used_at: p.last_used_at ?? undefined,
});

/** The ConsolePasskeyService: passkeys and signing in with one; the console only. */
export function passkeyHandlers(deps: SessionDeps, rpc: RpcBuilder): ConsolePasskeyServiceServer {
  return {
    beginPasskeyRegistration: rpc.console('BeginPasskeyRegistration', async (req) => ({
      options_json: await beginRegistration(deps, {
        sessionToken: req.session_token,
        origin: req.origin,
      }),
    })),

    finishPasskeyRegistration: rpc.console('FinishPasskeyRegistration', async (req) => ({
      passkey: toPasskey(
        await finishRegistration(deps, {
          sessionToken: req.session_token,
          origin: req.origin,
          name: req.name,
          responseJson: req.response_json,
        }),
      ),
    })),

    listPasskeys: rpc.console('ListPasskeys', async (req) => ({
      passkeys: (await listPasskeys(deps, { sessionToken: req.session_token })).map(toPasskey),
    })),

    removePasskey: rpc.console('RemovePasskey', async (req) => {
      await removePasskey(deps, { sessionToken: req.session_token, passkeyId: req.passkey_id });
      return {};
    }),

    beginPasskeySignIn: rpc.console('BeginPasskeySignIn', async (req) => ({
      options_json: await beginPasskeySignIn(deps, {
        origin: req.origin,
        clientKey: req.client_key,
      }),
    })),

    finishPasskeySignIn: rpc.console('FinishPasskeySignIn', async (req) => {
      const opened = await finishPasskeySignIn(deps, {
        origin: req.origin,
        responseJson: req.response_json,
        client: boundedClient(req.client),
      });
      return toOpenedResponse(opened);
    }),

    setBrandSignInPolicy: rpc.console('SetBrandSignInPolicy', async (req) => {
      await setBrandSignInPolicy(deps, {
        sessionToken: req.session_token,
        brandId: req.brand_id,
        policy: req.policy,
      });
      return {};
    }),
  };
}
