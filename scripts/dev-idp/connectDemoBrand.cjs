// node scripts/dev-idp/connectDemoBrand.cjs <brand-id> <issuer> <client-id> <domain> <zone.json>:
// connects the local OpenID provider (devIdp.mjs) to the demo brand as its single sign-on,
// through records' ConsoleSsoService with the operator's ADMIN_TOKEN (what an owner does on the
// brand's "Single sign-on" page), then proves the domain the way every brand does: it publishes
// the TXT record records asks for in the local DNS server's zone file (scripts/dev-dns) and
// asks records to verify it, which records does by DNS through SSO_DNS_SERVERS. Nothing here
// turns verification off. The client secret comes from DEV_IDP_CLIENT_SECRET. A connection
// already naming this issuer and client is left as it is (no activity each run).
const fs = require('node:fs');
const grpc = require('@grpc/grpc-js');
const { ConsoleSsoServiceClient } = require('@brand/proto/access/v1/sso');

const [brandId, issuer, clientId, domain, zoneFile] = process.argv.slice(2);
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

/** Publishes one TXT record in the zone file the local DNS server reads on every query. */
function publish(name, value) {
  let zone = { txt: {} };
  try {
    zone = JSON.parse(fs.readFileSync(zoneFile, 'utf8'));
  } catch {
    // a new zone
  }
  zone.txt = { ...zone.txt, [name]: [value] };
  fs.writeFileSync(zoneFile, `${JSON.stringify(zone, null, 2)}\n`);
}

async function main() {
  let { connection } = await call('getSsoConnection', { brand_id: brandId, session_token: '' });
  if (!(connection?.issuer === issuer && connection.client_id === clientId && connection.enabled)) {
    ({ connection } = await call('setSsoConnection', {
      brand_id: brandId,
      issuer,
      client_id: clientId,
      client_secret: process.env.DEV_IDP_CLIENT_SECRET ?? '',
      allowed_domains: [domain],
      enabled: true,
      session_token: '',
      // the connection as read above: a field left out of a request is encoded as the text
      // 'undefined' (no type checks this file), which records refused as a stale read
      if_updated_at: connection?.updated_at ?? '',
    }));
    console.log(`connected ${issuer} as the single sign-on of ${brandId}`);
  }
  const proof = connection.domains.find((d) => d.domain === domain);
  if (!proof) throw new Error(`${domain} is not a domain of the demo brand's single sign-on`);
  if (proof.state === 'verified') return;
  publish(proof.record_name, proof.record_value);
  const { domain: checked } = await call('verifySsoDomain', { brand_id: brandId, domain });
  if (checked.state !== 'verified') throw new Error(`${domain} not verified: ${checked.problem}`);
  console.log(`verified ${domain} by its TXT record ${proof.record_name}`);
}

main()
  .catch((err) => {
    process.stderr.write(`connecting the demo brand's SSO failed: ${err.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => client.close());
