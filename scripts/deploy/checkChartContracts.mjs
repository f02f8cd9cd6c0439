#!/usr/bin/env node
// What the chart promises beyond the schemas, checked on the rendered production example
// (npm run deploy:check):
//  1. The install step of the chart's README creates every Secret key the production values
//     read: the keys of its `kubectl create secret generic` command are compared with every
//     secretKeyRef (env), secret volume item and KEDA secretTargetRef of the rendered objects.
//     A key the command does not create, or a Secret it does not create at all, fails (pods
//     would sit in CreateContainerConfigError), unless the reference is optional.
//  2. Every alert's runbook_url names a heading of docs/operating.md.
//  3. The receivers' default egress ports are the service's own URL policy
//     (packages/shared/src/egress/portPolicy.ts): 443 and the unprivileged ports.
//  4. The console's HTTP port is open only to named peers (the ingress controller's namespace).
//  5. No probe on a public port (issue 47): every HTTP probe of a container targets its metrics
//     (internal) port, whose NetworkPolicy rule admits `probeFrom` besides `metricsFrom`.
//   node scripts/deploy/checkChartContracts.mjs <rendered production.yaml> [README.md]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const CHART = path.join(root, 'deploy/helm/brand-records');
const [renderedFile, readmeFile = path.join(CHART, 'README.md')] = process.argv.slice(2);
if (!renderedFile) {
  console.error('usage: checkChartContracts.mjs <rendered production.yaml> [README.md]');
  process.exit(2);
}

const problems = [];
const objects = parseAllDocuments(readFileSync(renderedFile, 'utf8'))
  .map((d) => d.toJS())
  .filter(Boolean);

// 1. The README's secrets against what the objects read -------------------------------------

/**
 * The Secrets the README's shell blocks create: { name: Set(keys) }, from each
 * `kubectl ... create secret generic NAME --from-literal=KEY=... --from-file=KEY=...` command
 * (continuation lines joined).
 */
function secretsCreatedBy(markdown) {
  const created = new Map();
  const blocks = [...markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]);
  for (const block of blocks) {
    for (const command of block.replace(/\\\n/g, ' ').split('\n')) {
      const m = /\bcreate\s+secret\s+generic\s+([a-z0-9.-]+)/.exec(command);
      if (!m) continue;
      const keys = created.get(m[1]) ?? new Set();
      for (const k of command.matchAll(/--from-(?:literal|file)=([A-Za-z0-9._-]+)=/g))
        keys.add(k[1]);
      created.set(m[1], keys);
    }
  }
  return created;
}

/** Every reference to a Secret key in the rendered objects: { secret, key, optional, where }. */
function secretReferences(objs) {
  const refs = [];
  for (const obj of objs) {
    const where = `${obj.kind} ${obj.metadata?.name}`;
    const pod = obj.spec?.template?.spec;
    if (pod) {
      for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
        for (const e of c.env ?? []) {
          const r = e.valueFrom?.secretKeyRef;
          if (r) refs.push({ secret: r.name, key: r.key, optional: r.optional === true, where });
        }
        for (const e of c.envFrom ?? []) {
          if (e.secretRef)
            refs.push({ secret: e.secretRef.name, optional: e.secretRef.optional === true, where });
        }
      }
      for (const v of pod.volumes ?? []) {
        if (!v.secret) continue;
        const optional = v.secret.optional === true;
        if (!v.secret.items) refs.push({ secret: v.secret.secretName, optional, where });
        for (const item of v.secret.items ?? [])
          refs.push({ secret: v.secret.secretName, key: item.key, optional, where });
      }
    }
    if (obj.kind === 'TriggerAuthentication') {
      for (const r of obj.spec?.secretTargetRef ?? [])
        refs.push({ secret: r.name, key: r.key, optional: false, where });
    }
  }
  return refs;
}

const readme = readFileSync(readmeFile, 'utf8');
const created = secretsCreatedBy(readme);
const rendered = new Set(objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name));
let checkedRefs = 0;
for (const ref of secretReferences(objects)) {
  if (ref.optional || rendered.has(ref.secret)) continue;
  checkedRefs++;
  const keys = created.get(ref.secret);
  if (!keys) {
    problems.push(
      `${ref.where} reads Secret ${ref.secret}${ref.key ? ` key ${ref.key}` : ''}, which the README's install step does not create`,
    );
  } else if (ref.key && !keys.has(ref.key)) {
    problems.push(
      `${ref.where} reads key ${ref.key} of Secret ${ref.secret}, which the README's \`kubectl create secret generic ${ref.secret}\` does not create`,
    );
  }
}
if (checkedRefs === 0) problems.push('no Secret reference found in the rendered objects');

// 2. Runbooks ---------------------------------------------------------------------------------

/** GitHub's anchor of a heading, as scripts/docs/checkLinks.mjs computes it. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const operating = readFileSync(path.join(root, 'docs/operating.md'), 'utf8');
const anchors = new Set([...operating.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => slug(m[1])));
let alerts = 0;
for (const rule of objects.filter((o) => o.kind === 'PrometheusRule')) {
  for (const group of rule.spec.groups) {
    for (const r of group.rules.filter((x) => x.alert)) {
      alerts++;
      const url = r.annotations?.runbook_url ?? '';
      const anchor = url.split('#')[1];
      if (!url.split('#')[0].endsWith('docs/operating.md') || !anchor || !anchors.has(anchor))
        problems.push(
          `alert ${r.alert}: runbook_url ${url || '(none)'} is not a heading of docs/operating.md`,
        );
    }
  }
}

// 3. Receivers' ports follow the service's URL policy ----------------------------------------

const policy = readFileSync(path.join(root, 'packages/shared/src/egress/portPolicy.ts'), 'utf8');
const constant = (name) => Number(new RegExp(`const ${name} = (\\d+);`).exec(policy)?.[1]);
const expected = [
  { port: constant('HTTPS_PORT') },
  { port: constant('FIRST_UNPRIVILEGED'), endPort: constant('LAST_PORT') },
];
const values = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8'));
const actual = values.networkPolicy.egress.receivers.ports;
if (JSON.stringify(actual) !== JSON.stringify(expected))
  problems.push(
    `networkPolicy.egress.receivers.ports is ${JSON.stringify(actual)}, the service accepts ${JSON.stringify(expected)} (portPolicy.ts)`,
  );

// 4. The console only from named peers --------------------------------------------------------

const consolePolicy = objects.find(
  (o) =>
    o.kind === 'NetworkPolicy' && o.metadata.labels?.['app.kubernetes.io/component'] === 'console',
);
const httpRule = consolePolicy?.spec.ingress?.find((r) => r.ports?.some((p) => p.port === 'http'));
if (consolePolicy && !httpRule?.from?.length)
  problems.push("the console's NetworkPolicy admits any source on its HTTP port");

// 5. Probes on the internal listener only -------------------------------------------------

let httpProbes = 0;
for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
  for (const c of deployment.spec.template.spec.containers ?? []) {
    const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
    for (const kind of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      const get = c[kind]?.httpGet;
      if (!get) continue;
      httpProbes++;
      const port = typeof get.port === 'number' ? get.port : ports.get(get.port);
      if (port !== ports.get('metrics'))
        problems.push(
          `Deployment ${deployment.metadata.name}: ${kind} ${get.path} is on port ${get.port}, not the internal metrics port (the public port serves nothing without a key)`,
        );
    }
  }
}
if (httpProbes === 0) problems.push('no HTTP probe found in the rendered Deployments');

if (problems.length > 0) {
  for (const p of problems) console.error(`chart contract: ${p}`);
  process.exit(1);
}
const secretKeys = [...created].map(([name, keys]) => `${name} (${keys.size} keys)`).join(', ');
console.log(
  `chart contracts hold: ${checkedRefs} Secret references created by the README's install step (${secretKeys}); ${alerts} runbooks in docs/operating.md; receivers' ports as portPolicy.ts; the console behind named peers; ${httpProbes} HTTP probes, all on internal ports`,
);
