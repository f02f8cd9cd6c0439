// A small authoritative DNS server for the local stack and the tests (issue 42, verified
// domains): it answers TXT questions from a JSON file read on every query, so `npm run up`
// publishes the demo brand's proof and a test publishes, changes and removes records while it
// runs. Records checks brands' domain proofs through it (SSO_DNS_SERVERS). UDP only, on
// 127.0.0.1; built on dns-packet (the wire format), nothing else. Not for production: it knows
// only the names in its file and answers NXDOMAIN for every other.
//
//   node scripts/dev-dns/devDns.mjs <config.json>   (or DEV_DNS_CONFIG=<config.json>)
//
// config.json: { "port": 0, "zoneFile": "<path>", "logQueries"?: false }
// zoneFile:    { "txt": { "<name>": ["<value>", ...] }, "delayMs"?: { "<name>": <ms> } }
//              (names without the trailing dot; delayMs holds a name's answer back, as a slow
//              resolver would: the answer is the zone at the question, sent that much later)
// Prints one JSON line {"msg":"listening","port":<port>} once it serves; with logQueries, one
// {"msg":"query","name","type"} line per question.
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import dnsPacket from 'dns-packet';

const config = JSON.parse(readFileSync(process.argv[2] ?? process.env.DEV_DNS_CONFIG, 'utf8'));

/** A TXT string is at most 255 bytes on the wire: longer values go as several strings. */
const chunks = (value) => {
  const bytes = Buffer.from(value, 'utf8');
  const out = [];
  for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  return out.length > 0 ? out : [Buffer.alloc(0)];
};

/** The zone file as it says now. */
function zoneFile() {
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(config.zoneFile, 'utf8'));
  } catch {
    parsed = {};
  }
  return parsed;
}

/** The zone's TXT records, names lowercased. */
function zone(parsed) {
  const txt = new Map();
  for (const [name, values] of Object.entries(parsed.txt ?? {})) {
    txt.set(name.toLowerCase().replace(/\.$/, ''), Array.isArray(values) ? values : [values]);
  }
  return txt;
}

/** The answer to one query: TXT records for a known name, NODATA for other types, NXDOMAIN otherwise. */
function answer(query, txt) {
  const answers = [];
  let known = false;
  for (const q of query.questions ?? []) {
    const name = q.name.toLowerCase().replace(/\.$/, '');
    if (config.logQueries) {
      process.stdout.write(`${JSON.stringify({ msg: 'query', name, type: q.type })}\n`);
    }
    const values = txt.get(name);
    if (!values) continue;
    known = true;
    if (q.type !== 'TXT' && q.type !== 'ANY') continue;
    for (const value of values) {
      answers.push({ type: 'TXT', class: 'IN', name: q.name, ttl: 5, data: chunks(String(value)) });
    }
  }
  return dnsPacket.encode({
    type: 'response',
    id: query.id,
    // authoritative; recursion desired echoed as asked
    flags: dnsPacket.AUTHORITATIVE_ANSWER | (query.flags & dnsPacket.RECURSION_DESIRED),
    questions: query.questions,
    answers,
    rcode: known ? 'NOERROR' : 'NXDOMAIN',
  });
}

const socket = createSocket('udp4');
socket.on('message', (message, peer) => {
  let query;
  try {
    query = dnsPacket.decode(message);
  } catch {
    return; // not DNS: no answer
  }
  if (query.type !== 'query') return;
  const parsed = zoneFile();
  const reply = answer(query, zone(parsed));
  const name = (query.questions?.[0]?.name ?? '').toLowerCase().replace(/\.$/, '');
  const delay = Number(parsed.delayMs?.[name] ?? 0);
  const send = () => {
    try {
      socket.send(reply, peer.port, peer.address);
    } catch {
      // closed meanwhile (the server is stopping): the question goes unanswered
    }
  };
  if (delay > 0) setTimeout(send, delay);
  else send();
});
socket.on('error', (err) => {
  process.stderr.write(`dev DNS server: ${err.message}\n`);
  process.exit(1);
});
socket.bind(config.port ?? 0, config.host ?? '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: socket.address().port })}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => socket.close(() => process.exit(0)));
}
