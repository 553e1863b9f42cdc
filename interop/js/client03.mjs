// Runs the @a2a-js/sdk 0.3.14 client (installed as the npm alias a2a-js-03) against an
// agent, for a2abind's interop tests: a real v0.3 client, which calls the v0.3 REST
// routes at {url}/v1/message:send and so on.
//
//   node client03.mjs --target URL [--transports SET] [--prefer BINDING] [--ops OPS] [--timeout-ms N] [--text TEXT]
//
//   --target      the agent's base URL (card at /.well-known/agent-card.json).
//   --transports  default (the SDK default, JSON-RPC and HTTP+JSON) or grpc (the default
//                 plus GrpcTransportFactory from a2a-js-03/client/grpc).
//   --prefer      ClientFactoryOptions.preferredTransports: JSONRPC, HTTP+JSON or GRPC.
//   --ops         comma list, run in order (default all): send, get, stream, get-unknown
//                 (as in client.mjs).
//   --timeout-ms  bound on the card fetch and each operation (default 10000).
//   --then        ends one run and starts the next (its own flags follow), as in client.mjs.
//
// Output: one JSON line per step on stdout, as client.mjs writes them:
//   {"run","op":"create","ok","sdkVersion","transport","url","error"?}
//   {"run","op","ok","transport","url","result"?,"error"?}
// Exit code 0 when the script ran, 2 on a usage error.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load, modulesPath } from './deps.mjs';

const { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } = load('a2a-js-03/client');
const sdkVersion = JSON.parse(readFileSync(path.join(modulesPath, 'a2a-js-03', 'package.json'), 'utf8')).version;

const ALL_OPS = ['send', 'get', 'stream', 'get-unknown'];

function usage(msg) {
  process.stderr.write(`client03.mjs: ${msg}\nusage: client03.mjs --target URL [--transports default|grpc] [--prefer JSONRPC|HTTP+JSON|GRPC] [--ops ${ALL_OPS.join(',')}] [--timeout-ms N] [--text TEXT]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { target: '', transports: 'default', prefer: [], ops: ALL_OPS, timeoutMs: 10_000, text: 'hello interop' };
  for (let i = 0; i < argv.length; i++) {
    let [flag, value] = argv[i].split(/=(.*)/s, 2);
    if (value === undefined) {
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      value = argv[++i];
    }
    switch (flag) {
      case '--target':
        args.target = value;
        break;
      case '--transports':
        if (value !== 'default' && value !== 'grpc') usage(`unknown --transports ${JSON.stringify(value)}`);
        args.transports = value;
        break;
      case '--prefer':
        args.prefer = value.split(',').filter(Boolean);
        break;
      case '--ops':
        args.ops = value.split(',').filter(Boolean);
        for (const op of args.ops) if (!ALL_OPS.includes(op)) usage(`unknown op ${JSON.stringify(op)}`);
        break;
      case '--timeout-ms':
        args.timeoutMs = Number(value);
        if (!(args.timeoutMs > 0)) usage(`bad --timeout-ms ${JSON.stringify(value)}`);
        break;
      case '--text':
        args.text = value;
        break;
      default:
        usage(`unknown flag ${JSON.stringify(flag)}`);
    }
  }
  if (!args.target) usage('--target is required');
  return args;
}

/** Recording wraps a transport factory and remembers the interface URL it was given. */
class Recording {
  constructor(inner, chosen) {
    this.inner = inner;
    this.chosen = chosen;
  }
  get protocolName() {
    return this.inner.protocolName;
  }
  async create(url, agentCard) {
    this.chosen.transport = this.inner.protocolName;
    this.chosen.url = url;
    return this.inner.create(url, agentCard);
  }
}

function sendParams(text) {
  return { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } };
}

function partsText(parts) {
  return (parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text).join(' ');
}

/** summarize reduces a v0.3 Task or Message to what the tests compare (as client.mjs). */
function summarize(v) {
  if (v?.kind === 'task') {
    return { kind: 'task', id: v.id, contextId: v.contextId, state: v.status?.state, text: (v.artifacts ?? []).map((a) => partsText(a.parts)).join(' ') };
  }
  if (v?.kind === 'message') return { kind: 'message', id: v.messageId, contextId: v.contextId, text: partsText(v.parts) };
  return { kind: 'unknown', keys: Object.keys(v ?? {}) };
}

function errorOf(err) {
  const out = { name: err?.name ?? 'Error', message: String(err?.message ?? err) };
  for (const key of ['code', 'status']) {
    const v = err?.[key];
    if (typeof v === 'string' || typeof v === 'number') out[key] = v;
  }
  return out;
}

async function runOp(op, client, state, args) {
  const opts = () => ({ signal: AbortSignal.timeout(args.timeoutMs) });
  switch (op) {
    case 'send': {
      const sum = summarize(await client.sendMessage(sendParams(args.text), opts()));
      if (sum.kind === 'task') state.taskId = sum.id;
      return sum;
    }
    case 'get':
      if (!state.taskId) throw new Error('get: no task id (send did not return a task)');
      return summarize(await client.getTask({ id: state.taskId }, opts()));
    case 'stream': {
      const events = [];
      const texts = [];
      let last;
      for await (const ev of client.sendMessageStream(sendParams(args.text), opts())) {
        switch (ev?.kind) {
          case 'artifact-update':
            events.push('artifact-update');
            texts.push(partsText(ev.artifact?.parts));
            break;
          case 'status-update':
            events.push(`status-update:${ev.status?.state}`);
            last = { kind: 'task', id: ev.taskId, contextId: ev.contextId, state: ev.status?.state };
            break;
          default: {
            const sum = summarize(ev);
            events.push(sum.state ? `${sum.kind}:${sum.state}` : sum.kind);
            last = sum;
          }
        }
      }
      return { ...(last ?? { kind: 'none' }), text: texts.filter(Boolean).join(' '), events };
    }
    case 'get-unknown':
      return summarize(await client.getTask({ id: randomUUID() }, opts()));
  }
  throw new Error(`unknown op ${op}`);
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function main() {
  const runs = [[]];
  for (const a of process.argv.slice(2)) {
    if (a === '--then') runs.push([]);
    else runs[runs.length - 1].push(a);
  }
  const parsed = runs.map(parseArgs);
  for (let run = 0; run < parsed.length; run++) await runOne(run, parsed[run]);
}

/** runOne creates one client as args say and runs its operations. */
async function runOne(run, args) {
  const chosen = { transport: null, url: null };
  const factories = [new JsonRpcTransportFactory(), new RestTransportFactory()];
  if (args.transports === 'grpc') {
    const { GrpcTransportFactory } = load('a2a-js-03/client/grpc');
    factories.push(new GrpcTransportFactory());
  }
  const transports = factories.map((f) => new Recording(f, chosen));
  let client;
  try {
    const factory = new ClientFactory({ transports, preferredTransports: args.prefer });
    client = await factory.createFromUrl(args.target);
    emit({ run, op: 'create', ok: true, sdkVersion, ...chosen });
  } catch (err) {
    emit({ run, op: 'create', ok: false, sdkVersion, ...chosen, error: errorOf(err) });
    return;
  }
  const state = {};
  for (const op of args.ops) {
    try {
      emit({ run, op, ok: true, ...chosen, result: await runOp(op, client, state, args) });
    } catch (err) {
      emit({ run, op, ok: false, ...chosen, error: errorOf(err) });
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`client03.mjs: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
