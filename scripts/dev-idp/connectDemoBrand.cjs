// node scripts/dev-idp/connectDemoBrand.cjs <brand-id> <issuer> <client-id> <domain>: connects
// the local OpenID provider (devIdp.mjs) to the demo brand as its single sign-on, through
// records' ConsoleSsoService with the operator's ADMIN_TOKEN (what an owner does on the
// brand's "Single sign-on" page). The client secret comes from DEV_IDP_CLIENT_SECRET. A
// connection already naming this issuer and client is left as it is (no activity each run).
const grpc = require('@grpc/grpc-js');
const { ConsoleSsoServiceClient } = require('@brand/proto/access/v1/sso');

const [brandId, issuer, clientId, domain] = process.argv.slice(2);
const client = new ConsoleSsoServiceClient(
  process.env.RECORDS_GRPC_ADDR ?? '127.0.0.1:50051',
  grpc.credentials.createInsecure(),
);
const metadata = new grpc.Metadata();
metadata.set('x-internal-token', process.env.ADMIN_TOKEN ?? '');

const call = (method, request) =>
  new Promise((resolve, reject) =>
    client[method](request, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
      err ? reject(err) : resolve(res),
    ),
  );

async function main() {
  const { connection } = await call('getSsoConnection', { brand_id: brandId });
  if (connection?.issuer === issuer && connection.client_id === clientId && connection.enabled) {
    return;
  }
  await call('setSsoConnection', {
    brand_id: brandId,
    issuer,
    client_id: clientId,
    client_secret: process.env.DEV_IDP_CLIENT_SECRET ?? '',
    allowed_domains: [domain],
    enabled: true,
  });
  console.log(`connected ${issuer} as the single sign-on of ${brandId}`);
}

main()
  .catch((err) => {
    process.stderr.write(`connecting the demo brand's SSO failed: ${err.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => client.close());
