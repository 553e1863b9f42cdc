// Runs the @a2a-js/sdk 1.3.0 client against an agent, for a2abind's interop tests.
//
//   node client.mjs --target URL [--transports SET] [--prefer BINDINGS] [--ops OPS]
//                   [--timeout-ms N] [--text TEXT]
//
//   --target      the agent's base URL (card at /.well-known/agent-card.json) or the
//                 full URL of a card document (anything ending in .json).
//   --transports  which transport factories the ClientFactory gets:
//                   default   the SDK default, JsonRpcTransportFactory + RestTransportFactory
//                   grpc      the default plus GrpcTransportFactory from @a2a-js/sdk/client/grpc
//                 or a comma list of jsonrpc, rest, grpc.
//   --prefer      ClientFactoryOptions.preferredTransports, a comma list of binding names
//                 (JSONRPC, HTTP+JSON, GRPC); empty by default, so the card's order decides.
//   --ops         comma list of operations, run in order (default: all of them):
//                   send         sendMessage(text), blocking
//                   get          getTask of the task that send returned
//                   stream       sendMessageStream(text), collecting every event
//                   cancel       sendMessage("hold ...", returnImmediately) then cancelTask
//                   cancel-completed  cancelTask of the completed task send returned (an
//                                error case: TaskNotCancelable)
//                   get-unknown  getTask of a random id (the error case: TaskNotFound)
//   --timeout-ms  bound on the card fetch and on each operation (default 10000).
//   --legacy-compat true  enables the SDK's v0.3 compatibility layer (legacyCompat on
//                 the card resolver and the JSON-RPC and HTTP+JSON factories): a v0.3
//                 card, or a v0.3 interface, is spoken to with the v0.3 transports.
//   --then        ends one run and starts the next (its own flags follow), so that one
//                 Node process (which loads the SDK once) can run several clients in turn.
//
// Output: one JSON line per step on stdout, each with "run" (the run's index, from 0).
// The first line of a run is
//   {"run","op":"create","ok","transport","url","protocolVersion","error"?}
// saying which interface the factory chose (transport is the binding name of the chosen
// factory, url the interface URL it was given). Then one line per operation:
//   {"run","op","ok","transport","url","result"?,"error"?}
// where result summarises the answer ({kind,id,contextId,state,text,events?}) and error is
// {name, message, reason?, code?, status?}. When create fails, every operation is
// reported as not run (ok false, error "no client"). The exit code is 0 when the script
// ran (whatever the operations gave), 2 on a usage error.

import { randomUUID } from 'node:crypto';
import { load, sdkVersion } from './deps.mjs';

const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } = load('@a2a-js/sdk/client');

const ALL_OPS = ['send', 'get', 'stream', 'cancel', 'cancel-completed', 'get-unknown'];
const STATE_NAMES = {
  0: 'unspecified',
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
  6: 'input-required',
  7: 'rejected',
  8: 'auth-required',
};

function usage(msg) {
  process.stderr.write(
    `client.mjs: ${msg}\nusage: client.mjs --target URL [--transports default|grpc|jsonrpc,rest,grpc] ` +
      `[--prefer JSONRPC,GRPC,...] [--ops ${ALL_OPS.join(',')}] [--timeout-ms N] [--text TEXT] [--legacy-compat true] [--then ...]\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const args = { target: '', transports: 'default', prefer: [], ops: ALL_OPS, timeoutMs: 10_000, text: 'hello interop', legacyCompat: false };
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
      case '--legacy-compat':
        args.legacyCompat = value === 'true';
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

async function transportFactories(set, legacyCompat) {
  const compat = legacyCompat ? { legacyCompat: { enabled: true } } : undefined;
  const names = set === 'default' ? ['jsonrpc', 'rest'] : set === 'grpc' ? ['jsonrpc', 'rest', 'grpc'] : set.split(',');
  const out = [];
  for (const name of names) {
    switch (name) {
      case 'jsonrpc':
        out.push(new JsonRpcTransportFactory(compat));
        break;
      case 'rest':
        out.push(new RestTransportFactory(compat));
        break;
      case 'grpc': {
        const { GrpcTransportFactory } = load('@a2a-js/sdk/client/grpc');
        out.push(new GrpcTransportFactory());
        break;
      }
      default:
        usage(`unknown transport ${JSON.stringify(name)}`);
    }
  }
  return out;
}

function textPart(text) {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} };
}

function userMessage(text) {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: 1, // Role.ROLE_USER: the SDK wants the numeric enum
    parts: [textPart(text)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(text, returnImmediately) {
  return {
    tenant: '',
    message: userMessage(text),
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: {},
  };
}

function partsText(parts) {
  return (parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join(' ');
}

/** summarize reduces a Task or Message (or a stream event) to what the tests compare. */
function summarize(value) {
  if (!value || typeof value !== 'object') return { kind: typeof value };
  if ('status' in value && 'artifacts' in value) {
    return {
      kind: 'task',
      id: value.id,
      contextId: value.contextId,
      state: STATE_NAMES[value.status?.state] ?? String(value.status?.state),
      text: (value.artifacts ?? []).map((a) => partsText(a.parts)).join(' '),
    };
  }
  if ('messageId' in value && 'parts' in value) {
    return { kind: 'message', id: value.messageId, contextId: value.contextId, text: partsText(value.parts) };
  }
  return { kind: 'unknown', keys: Object.keys(value) };
}

function errorOf(err) {
  const out = { name: err?.name ?? 'Error', message: String(err?.message ?? err) };
  for (const key of ['reason', 'code', 'status']) {
    const v = err?.[key];
    if (v !== undefined && v !== null && (typeof v === 'string' || typeof v === 'number')) out[key] = v;
  }
  if (err?.cause?.code !== undefined && out.code === undefined) out.code = err.cause.code;
  return out;
}

function withTimeout(ms) {
  return { signal: AbortSignal.timeout(ms) };
}

async function runOp(op, client, state, args) {
  const opts = () => withTimeout(args.timeoutMs);
  switch (op) {
    case 'send': {
      const res = await client.sendMessage(sendRequest(args.text, false), opts());
      const sum = summarize(res);
      if (sum.kind === 'task') state.taskId = sum.id;
      return sum;
    }
    case 'get': {
      if (!state.taskId) throw new Error('get: no task id (send did not return a task)');
      return summarize(await client.getTask({ tenant: '', id: state.taskId, historyLength: undefined }, opts()));
    }
    case 'stream': {
      const events = [];
      let last;
      const texts = [];
      for await (const ev of client.sendMessageStream(sendRequest(args.text, false), opts())) {
        // Each event is a StreamResponse: payload.$case is task, message, statusUpdate or
        // artifactUpdate.
        const { $case: kind, value } = ev?.payload ?? {};
        switch (kind) {
          case 'artifactUpdate':
            events.push('artifact-update');
            texts.push(partsText(value.artifact?.parts));
            break;
          case 'statusUpdate': {
            const st = STATE_NAMES[value.status?.state] ?? String(value.status?.state);
            events.push(`status-update:${st}`);
            last = { kind: 'task', id: value.taskId, contextId: value.contextId, state: st };
            break;
          }
          case 'task':
          case 'message': {
            const sum = summarize(value);
            events.push(sum.state ? `${kind}:${sum.state}` : kind);
            last = sum;
            if (sum.text) texts.push(sum.text);
            break;
          }
          default:
            events.push(`unknown:${kind}`);
        }
      }
      return { ...(last ?? { kind: 'none' }), text: texts.filter(Boolean).join(' '), events };
    }
    case 'cancel': {
      const held = summarize(await client.sendMessage(sendRequest(`hold ${args.text}`, true), opts()));
      if (held.kind !== 'task') throw new Error(`cancel: send returned a ${held.kind}, not a task`);
      const res = summarize(await client.cancelTask({ tenant: '', id: held.id, metadata: {} }, opts()));
      return { ...res, before: held.state };
    }
    case 'cancel-completed': {
      if (!state.taskId) throw new Error('cancel-completed: no task id (send did not return a task)');
      return summarize(await client.cancelTask({ tenant: '', id: state.taskId, metadata: {} }, opts()));
    }
    case 'get-unknown':
      return summarize(await client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined }, opts()));
  }
  throw new Error(`unknown op ${op}`);
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

/** splitRuns splits the arguments into runs at each --then. */
function splitRuns(argv) {
  const runs = [[]];
  for (const a of argv) {
    if (a === '--then') runs.push([]);
    else runs[runs.length - 1].push(a);
  }
  return runs.map(parseArgs);
}

async function main() {
  const runs = splitRuns(process.argv.slice(2));
  for (let run = 0; run < runs.length; run++) {
    await runOne(run, runs[run]);
  }
}

/** runOne creates one client as args say and runs its operations. */
async function runOne(run, args) {
  const chosen = { transport: null, url: null };
  const transports = (await transportFactories(args.transports, args.legacyCompat)).map((f) => new Recording(f, chosen));
  let client;
  try {
    const options = { transports, preferredTransports: args.prefer };
    if (args.legacyCompat) options.cardResolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });
    const factory = new ClientFactory(options);
    const isCardURL = /\.json($|\?)/.test(args.target);
    client = await withDeadline(
      isCardURL ? factory.createFromUrl(args.target, '') : factory.createFromUrl(args.target),
      args.timeoutMs,
      'create',
    );
    emit({ run, op: 'create', ok: true, sdkVersion, ...chosen, protocolVersion: client.protocolVersion });
  } catch (err) {
    emit({ run, op: 'create', ok: false, sdkVersion, ...chosen, error: errorOf(err) });
  }
  const state = {};
  for (const op of args.ops) {
    if (!client) {
      emit({ run, op, ok: false, ...chosen, error: { name: 'NoClient', message: 'no client: create failed' } });
      continue;
    }
    try {
      const result = await withDeadline(runOp(op, client, state, args), args.timeoutMs + 1000, op);
      emit({ run, op, ok: true, ...chosen, result });
    } catch (err) {
      emit({ run, op, ok: false, ...chosen, error: errorOf(err) });
    }
  }
}

/** withDeadline bounds a promise that has no signal of its own (the card fetch). */
function withDeadline(promise, ms, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`client.mjs: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
