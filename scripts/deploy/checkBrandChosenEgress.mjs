#!/usr/bin/env node
// The processes that connect where a brand says (records to the identity providers owners name,
// the webhooks worker to receivers and audit streams) cannot reach inside the network under the
// chart's own egress policies (npm run deploy:check, on the defaults and the production example,
// the two a platform team starts from): neither reaches a private address nor the cloud metadata
// service on the ports they use for brands (443, and 8443 for the worker), and both still reach a
// public address there. The service refuses those addresses itself; the policy is the second
// layer. Records' rule once admitted any address on 443 by default, the cluster's own included.
//   node scripts/deploy/checkBrandChosenEgress.mjs <label=rendered.yaml>...
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { podCanReach } from './egressReach.mjs';

const INSIDE = [
  '10.0.0.1',
  '172.16.0.1',
  '192.168.0.1',
  '100.64.0.1',
  '169.254.169.254',
  '127.0.0.1',
];
const PUBLIC = '93.184.215.14';
const PORTS = { records: [443], 'webhooks-worker': [443, 8443] };

const problems = [];
let checked = 0;
for (const arg of process.argv.slice(2)) {
  const [label, file] = arg.split(/=(.*)/s);
  const objects = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const policies = objects.filter(
    (o) => o.kind === 'NetworkPolicy' && (o.spec.policyTypes ?? []).includes('Egress'),
  );
  for (const o of objects.filter((x) => x.kind === 'Deployment')) {
    const labels = o.spec.template.metadata?.labels ?? {};
    const ports = PORTS[labels['app.kubernetes.io/component']];
    if (!ports) continue;
    checked++;
    const reach = (ip, port) => podCanReach(policies, o.metadata.namespace, labels, ip, port);
    for (const port of ports) {
      for (const ip of INSIDE)
        if (reach(ip, port)) problems.push(`${label}: ${o.metadata.name} may reach ${ip}:${port}`);
      if (!reach(PUBLIC, port))
        problems.push(`${label}: ${o.metadata.name} cannot reach a public address on ${port}`);
    }
  }
}
if (checked === 0) problems.push('no records or webhooks-worker Deployment in the rendered sets');
if (problems.length > 0) {
  console.error(`egress to brand-chosen addresses:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `egress to brand-chosen addresses: ${checked} Deployments reach public addresses only on their ports`,
);
