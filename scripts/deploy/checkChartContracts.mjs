#!/usr/bin/env node
// What the chart promises beyond the schemas, checked on the rendered production example
// (npm run deploy:check):
//  1. Every Secret and ConfigMap a rendered object reads exists (issue 60): each reference (env
//     secretKeyRef and configMapKeyRef, envFrom, secret, configMap and projected volumes, an
//     Ingress's TLS secretName, KEDA's secretTargetRef, imagePullSecrets) is rendered by the
//     chart, issued by a rendered cert-manager Certificate (its secretName), or created, key by
//     key, by the README's install step (`kubectl create secret generic|tls`, `kubectl create
//     configmap`). Anything else fails (pods would sit in CreateContainerConfigError, an Ingress
//     would serve the controller's default certificate), unless the reference is optional.
//  2. Every alert's runbook_url names a heading of docs/operating.md.
//  3. The receivers' default egress ports are the service's own URL policy
//     (packages/shared/src/egress/portPolicy.ts): 443 and the unprivileged ports.
//  4. The console's HTTP port is open only to named peers (the ingress controller's namespace).
//  5. No probe on a public port (issue 47): every HTTP probe of a container targets its metrics
//     (internal) port, whose NetworkPolicy rule admits `probeFrom` besides `metricsFrom`.
//  6. Liveness never follows a dependency (issue 60): no liveness probe is a gRPC health check
//     (NOT_SERVING without the database) or /readyz.
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

// 1. Every Secret and ConfigMap read exists ---------------------------------------------------

/**
 * The Secrets and ConfigMaps the README's shell blocks create: { 'Secret/name': Set(keys) },
 * from each `kubectl ... create secret generic|tls NAME` (its --from-literal/--from-file keys;
 * tls: tls.crt and tls.key) and `kubectl ... create configmap NAME --from-file=KEY=...`
 * command (continuation lines joined).
 */
function createdBy(markdown) {
  const created = new Map();
  const blocks = [...markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => m[1]);
  for (const block of blocks) {
    for (const command of block.replace(/\\\n/g, ' ').split('\n')) {
      const m = /\bcreate\s+(secret\s+generic|secret\s+tls|configmap)\s+([a-z0-9.-]+)/.exec(
        command,
      );
      if (!m) continue;
      const id = `${m[1] === 'configmap' ? 'ConfigMap' : 'Secret'}/${m[2]}`;
      const keys = created.get(id) ?? new Set();
      if (m[1].endsWith('tls')) ['tls.crt', 'tls.key'].forEach((k) => keys.add(k));
      for (const k of command.matchAll(/--from-(?:literal|file)=([A-Za-z0-9._-]+)=/g))
        keys.add(k[1]);
      created.set(id, keys);
    }
  }
  return created;
}

/** Every reference to a Secret or ConfigMap (and key) in the rendered objects. */
function references(objs) {
  const refs = [];
  const add = (kind, name, key, optional, where) =>
    refs.push({ id: `${kind}/${name}`, key, optional: optional === true, where });
  for (const obj of objs) {
    const where = `${obj.kind} ${obj.metadata?.name}`;
    const pod = obj.spec?.template?.spec ?? obj.spec?.jobTemplate?.spec?.template?.spec;
    if (pod) {
      for (const s of pod.imagePullSecrets ?? []) add('Secret', s.name, undefined, false, where);
      for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
        for (const e of c.env ?? []) {
          const sk = e.valueFrom?.secretKeyRef;
          if (sk) add('Secret', sk.name, sk.key, sk.optional, where);
          const ck = e.valueFrom?.configMapKeyRef;
          if (ck) add('ConfigMap', ck.name, ck.key, ck.optional, where);
        }
        for (const e of c.envFrom ?? []) {
          if (e.secretRef) add('Secret', e.secretRef.name, undefined, e.secretRef.optional, where);
          if (e.configMapRef)
            add('ConfigMap', e.configMapRef.name, undefined, e.configMapRef.optional, where);
        }
      }
      for (const v of pod.volumes ?? []) {
        const sources = [
          ...(v.secret ? [{ kind: 'Secret', name: v.secret.secretName, ...v.secret }] : []),
          ...(v.configMap ? [{ kind: 'ConfigMap', ...v.configMap }] : []),
          ...(v.projected?.sources ?? []).flatMap((src) => [
            ...(src.secret ? [{ kind: 'Secret', ...src.secret }] : []),
            ...(src.configMap ? [{ kind: 'ConfigMap', ...src.configMap }] : []),
          ]),
        ];
        for (const src of sources) {
          if (!src.items) add(src.kind, src.name, undefined, src.optional, where);
          for (const item of src.items ?? [])
            add(src.kind, src.name, item.key, src.optional, where);
        }
      }
    }
    if (obj.kind === 'Ingress')
      for (const t of obj.spec?.tls ?? []) add('Secret', t.secretName, undefined, false, where);
    if (obj.kind === 'TriggerAuthentication')
      for (const r of obj.spec?.secretTargetRef ?? []) add('Secret', r.name, r.key, false, where);
  }
  return refs;
}

const readme = readFileSync(readmeFile, 'utf8');
const created = createdBy(readme);
const rendered = new Set(
  objects
    .filter((o) => ['Secret', 'ConfigMap'].includes(o.kind))
    .map((o) => `${o.kind}/${o.metadata.name}`),
);
// cert-manager writes each Certificate's Secret (tls.crt, tls.key) and renews it
const issued = new Set(
  objects.filter((o) => o.kind === 'Certificate').map((o) => `Secret/${o.spec.secretName}`),
);
const read = { Secret: new Set(), ConfigMap: new Set() };
let checkedRefs = 0;
for (const ref of references(objects)) {
  if (ref.optional) continue;
  checkedRefs++;
  const [kind] = ref.id.split('/');
  read[kind].add(ref.id);
  if (rendered.has(ref.id) || issued.has(ref.id)) continue;
  const keys = created.get(ref.id);
  if (!keys) {
    problems.push(
      `${ref.where} reads ${ref.id.replace('/', ' ')}${ref.key ? ` key ${ref.key}` : ''}, which neither the chart renders, a Certificate issues, nor the README's install step creates`,
    );
  } else if (ref.key && !keys.has(ref.key)) {
    problems.push(
      `${ref.where} reads key ${ref.key} of ${ref.id.replace('/', ' ')}, which the README's \`kubectl create\` of it does not create`,
    );
  }
}
if (checkedRefs === 0)
  problems.push('no Secret or ConfigMap reference found in the rendered objects');

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

// 6. Liveness never follows a dependency ------------------------------------------------------

let livenessProbes = 0;
for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
  for (const c of deployment.spec.template.spec.containers ?? []) {
    const probe = c.livenessProbe;
    if (!probe) continue;
    livenessProbes++;
    if (probe.grpc || probe.httpGet?.path === '/readyz')
      problems.push(
        `Deployment ${deployment.metadata.name}: its liveness probe (${probe.grpc ? 'grpc.health.v1' : '/readyz'}) follows its dependencies, so a database failover would restart it`,
      );
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`chart contract: ${p}`);
  process.exit(1);
}
const made = [...created].map(([id, keys]) => `${id} (${keys.size} keys)`).join(', ');
console.log(
  `chart contracts hold: ${checkedRefs} references to ${read.Secret.size} Secrets and ${read.ConfigMap.size} ConfigMaps, each rendered, issued by one of ${issued.size} Certificates or created by the README's install step (${made}); ${livenessProbes} liveness probes, none following a dependency; ${alerts} runbooks in docs/operating.md; receivers' ports as portPolicy.ts; the console behind named peers; ${httpProbes} HTTP probes, all on internal ports`,
);
