#!/usr/bin/env node
// Every key a pod reads from a Secret the same release renders is in that Secret (npm run
// deploy:check, on every rendered values set): an env secretKeyRef, or an item of a secret or
// projected volume. A missing key stops the pods (CreateContainerConfigError, or a volume that
// never mounts) long after `helm install` succeeded: with secrets.create, the chart-managed
// Secret and the migration Job's hook Secret must hold each password that database.passwordFiles
// and redis.passwordFile mount. Secrets the release does not render (the README's install step,
// External Secrets) are checkChartContracts.mjs's business, and optional references are skipped.
//   node scripts/deploy/checkRenderedSecretKeys.mjs <label=rendered.yaml>...
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const problems = [];
const summary = [];
for (const arg of process.argv.slice(2)) {
  const [label, file] = arg.includes('=') ? arg.split(/=(.*)/s) : [arg, arg];
  const objects = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const keysOf = new Map(
    objects
      .filter((o) => o.kind === 'Secret')
      .map((o) => [
        o.metadata.name,
        new Set([...Object.keys(o.data ?? {}), ...Object.keys(o.stringData ?? {})]),
      ]),
  );
  let checked = 0;
  const check = (where, secret, key, optional) => {
    const keys = keysOf.get(secret);
    if (!keys || optional === true) return;
    checked++;
    if (!keys.has(key))
      problems.push(`${label}: ${where} reads key ${key} of Secret ${secret}, which it lacks`);
  };
  for (const obj of objects) {
    const pod = obj.spec?.template?.spec ?? obj.spec?.jobTemplate?.spec?.template?.spec;
    if (!pod) continue;
    const where = `${obj.kind} ${obj.metadata.name}`;
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])])
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) check(`${where} (${c.name})`, ref.name, ref.key, ref.optional);
      }
    for (const v of pod.volumes ?? []) {
      const sources = [
        ...(v.secret ? [{ name: v.secret.secretName, ...v.secret }] : []),
        ...(v.projected?.sources ?? []).flatMap((s) => (s.secret ? [s.secret] : [])),
      ];
      for (const s of sources)
        for (const item of s.items ?? [])
          check(`${where} (volume ${v.name})`, s.name, item.key, s.optional);
    }
  }
  if (keysOf.size > 0) summary.push(`${label}: ${checked} keys of ${keysOf.size} Secrets`);
}

for (const p of problems) console.error(`rendered Secret: ${p}`);
if (problems.length > 0) process.exit(1);
if (summary.length === 0) {
  console.error('rendered Secret: no values set renders a Secret to check');
  process.exit(1);
}
console.log(`rendered Secrets hold every key read: ${summary.join('; ')}`);
