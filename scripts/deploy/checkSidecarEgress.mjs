#!/usr/bin/env node
// The sidecars of the worked examples can do their job under the chart's egress NetworkPolicies
// (npm run deploy:check, on every rendered values set):
//  1. A Cloud SQL Auth Proxy without a credentials file gets its tokens from the GKE metadata
//     server (workload identity): its pod's policies let it out to 169.254.169.254:80 and to
//     169.254.169.252:988 (where newer GKE dataplanes serve it).
//  2. A container with VAULT_ADDR (a Vault agent) may reach that port: a rule for it to an
//     address block (or anywhere). An IP literal must lie inside the block.
//  3. A Vault agent in a pod without an automounted ServiceAccount token (the chart mounts
//     none) mounts a projected serviceAccountToken volume, or its Kubernetes auth has no JWT.
// The rules come from networkPolicy.egress.extra and extraByComponent; without them the proxy
// and the agent would time out and the pods never start (the GCP example once could not).
//   node scripts/deploy/checkSidecarEgress.mjs <label=rendered.yaml>...
// Fails when a rule above is broken, or when no file had a proxy and an agent to check.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { isIpv4, podCanReach } from './egressReach.mjs';

const METADATA_SERVER = [
  { ip: '169.254.169.254', port: 80 },
  { ip: '169.254.169.252', port: 988 },
];

const problems = [];
const counts = { proxies: 0, agents: 0 };
for (const arg of process.argv.slice(2)) {
  const [label, file] = arg.includes('=') ? arg.split(/=(.*)/s) : [arg, arg];
  const objects = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const policies = objects.filter(
    (o) => o.kind === 'NetworkPolicy' && (o.spec.policyTypes ?? []).includes('Egress'),
  );
  for (const o of objects.filter((x) => ['Deployment', 'Job'].includes(x.kind))) {
    const pod = o.spec.template.spec;
    const labels = o.spec.template.metadata?.labels ?? {};
    const canReach = (ip, port) => podCanReach(policies, o.metadata.namespace, labels, ip, port);
    const where = `${label}: ${o.kind} ${o.metadata.name}`;
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const args = (c.args ?? []).join(' ');
      if (
        /cloud-?sql-proxy/.test(c.image ?? '') &&
        !/--(credentials-file|json-credentials)/.test(args)
      ) {
        counts.proxies++;
        for (const { ip, port } of METADATA_SERVER)
          if (!canReach(ip, port))
            problems.push(
              `${where}: its Cloud SQL Auth Proxy (${c.name}) cannot reach the GKE metadata server at ${ip}:${port} (networkPolicy.egress.extra): it gets no token and never connects`,
            );
      }
      const vault = (c.env ?? []).find((e) => e.name === 'VAULT_ADDR')?.value;
      if (!vault) continue;
      counts.agents++;
      const url = new URL(vault);
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      const host = url.hostname;
      if (!canReach(isIpv4(host) ? host : undefined, port))
        problems.push(
          `${where}: ${c.name} (VAULT_ADDR ${vault}) has no egress rule to port ${port} (networkPolicy.egress.extraByComponent): it never authenticates`,
        );
      if (pod.automountServiceAccountToken === false) {
        const tokenVolumes = new Set(
          (pod.volumes ?? [])
            .filter((v) => (v.projected?.sources ?? []).some((s) => s.serviceAccountToken))
            .map((v) => v.name),
        );
        if (!(c.volumeMounts ?? []).some((m) => tokenVolumes.has(m.name)))
          problems.push(
            `${where}: ${c.name} runs in a pod without an automounted ServiceAccount token and mounts no projected serviceAccountToken volume: Vault's Kubernetes auth has no JWT to send`,
          );
      }
    }
  }
}
if (counts.proxies === 0)
  problems.push('no Cloud SQL Auth Proxy found in the rendered values sets');
if (counts.agents === 0)
  problems.push('no container with VAULT_ADDR found in the rendered values sets');
if (problems.length > 0) {
  for (const p of problems) console.error(`sidecar egress: ${p}`);
  process.exit(1);
}
console.log(
  `sidecar egress: ${counts.proxies} Cloud SQL Auth Proxies reach the GKE metadata server (both addresses); ${counts.agents} Vault agents reach Vault, each with a projected token`,
);
