// An @a2a-js/sdk 1.3.0 agent on loopback, for a2abind's interop tests.
//
//   node server.mjs [--card MODE]        (or A2ABIND_INTEROP_CARD=MODE)
//
// It serves one DefaultRequestHandler over JSON-RPC (/a2a/jsonrpc) and HTTP+JSON
// (/a2a/rest) on an HTTP port and, depending on MODE, over gRPC on a second port; the
// card is at /.well-known/agent-card.json. Every listener is on 127.0.0.1, port 0.
//
// MODE says which card it publishes (the request handler validates versions against
// the same card, as a real a2a-js agent does):
//   honest           JSONRPC, GRPC and HTTP+JSON, each declared where it is served.
//   grpc-at-http     the seed defect, preferred entry: GRPC declared first at the HTTP
//                    port's host:port (which speaks HTTP/1.1 only), then JSONRPC and
//                    HTTP+JSON where they are served. No gRPC listener.
//   grpc-no-service  the seed defect, second port: GRPC declared first at a bare grpc-js
//                    server with no A2A service registered (every call UNIMPLEMENTED),
//                    then JSONRPC and HTTP+JSON where they are served.
//   seed             the seed incident's card in v1.0 shape (like lab.SeedV1): GRPC at the
//                    HTTP base URL, JSONRPC at the HTTP base URL (mounted at the root), GRPC
//                    at a bare grpc-js server with no A2A service.
//   legacy-compat    JSONRPC and HTTP+JSON served with legacyCompat enabled, each declared
//                    twice at its URL: protocolVersion 1.0 and 0.3 (v0.3 REST is served
//                    under {url}/v1/..., while {url}/tasks/{id} answers in 1.0 shape).
//   capable          the honest interfaces; the card declares streaming, push
//                    notifications (a2a-js's in-memory push store) and the extended card
//                    (an extendedAgentCardProvider), and the handler serves all three.
//   capability-lies  the honest interfaces; the card declares streaming, push
//                    notifications and the extended card, while the request handler is
//                    given the same card with all three off (a2a-js decides what it
//                    serves from the card it holds): every capability is refused.
//
// Once listening it prints one JSON line on stdout:
//   {"mode","sdkVersion","baseUrl","cardUrl","jsonrpc","rest","grpc","bareGrpc","card"}
// (a binding that is not served is null). It exits when stdin closes, on SIGTERM or
// SIGINT, or after A2ABIND_INTEROP_MAX_LIFETIME_MS (default 10 minutes), so a test that
// dies leaves nothing behind.
//
// The executor echoes: every message becomes a task (submitted, working, one artifact
// "echo: <text>", completed). A message whose text starts with "hold" stays working
// until it is canceled (or 30 s pass), so cancel can be exercised.

import { load, sdkVersion } from './deps.mjs';

const express = load('express');
const grpc = load('@grpc/grpc-js');
const { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } = load('@a2a-js/sdk/server');
const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } = load('@a2a-js/sdk/server/express');
const { grpcService, A2AService } = load('@a2a-js/sdk/server/grpc');

const MODES = ['honest', 'grpc-at-http', 'grpc-no-service', 'seed', 'legacy-compat', 'capable', 'capability-lies'];
// HONEST_INTERFACES are the modes that serve and declare the honest interfaces
// (JSON-RPC, gRPC with the A2A service, HTTP+JSON).
const HONEST_INTERFACES = ['honest', 'capable', 'capability-lies'];
// CLAIMS_EVERY_CAPABILITY are the modes whose card declares streaming, push
// notifications and the extended card.
const CLAIMS_EVERY_CAPABILITY = ['capable', 'capability-lies'];
const TaskState = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5 };
const HOLD_MS = 30_000;

function parseMode(argv) {
  let mode = process.env.A2ABIND_INTEROP_CARD || 'honest';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--card' && i + 1 < argv.length) {
      mode = argv[++i];
    } else if (argv[i].startsWith('--card=')) {
      mode = argv[i].slice('--card='.length);
    } else {
      fail(`unknown argument ${JSON.stringify(argv[i])}; usage: server.mjs [--card ${MODES.join('|')}]`);
    }
  }
  if (!MODES.includes(mode)) {
    fail(`unknown card mode ${JSON.stringify(mode)}; want one of ${MODES.join(', ')}`);
  }
  return mode;
}

function fail(msg) {
  process.stderr.write(`server.mjs: ${msg}\n`);
  process.exit(2);
}

function textOf(message) {
  return (message?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join(' ');
}

function textPart(text) {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} };
}

function status(state) {
  return { state, message: undefined, timestamp: new Date().toISOString() };
}

/** EchoExecutor completes every task with an echo artifact; "hold..." waits for cancel. */
class EchoExecutor {
  held = new Map(); // taskId -> release()

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const text = textOf(ctx.userMessage);
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.SUBMITTED),
          artifacts: [],
          history: [ctx.userMessage],
          metadata: {},
        }),
      );
    }
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.WORKING), metadata: {} }));
    if (text.startsWith('hold')) {
      const canceled = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), HOLD_MS);
        this.held.set(taskId, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      this.held.delete(taskId);
      if (canceled) {
        bus.finished();
        return;
      }
    }
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: `${taskId}-echo`,
          name: 'echo',
          description: '',
          parts: [textPart(`echo: ${text}`)],
          metadata: {},
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: {},
      }),
    );
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.COMPLETED), metadata: {} }));
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    const release = this.held.get(taskId);
    bus.publish(
      AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.CANCELED), metadata: {} }),
    );
    if (release) {
      release();
    }
  }
}

function listenHTTP(app) {
  return new Promise((resolve, reject) => {
    const srv = app.listen(0, '127.0.0.1', (err) => (err ? reject(err) : resolve(srv)));
    srv.on('error', reject);
  });
}

function listenGRPC(server) {
  return new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(`127.0.0.1:${port}`),
    );
  });
}

function iface(url, protocolBinding, protocolVersion = '1.0') {
  return { url, protocolBinding, tenant: '', protocolVersion };
}

/** buildCard is the card of a mode; with no addresses yet, it declares no interface. */
function buildCard(mode, addrs) {
  const { baseUrl, jsonrpc, rest, grpcAddr, bareGrpc } = addrs;
  let supportedInterfaces = [];
  switch (baseUrl ? mode : 'none') {
    case 'honest':
    case 'capable':
    case 'capability-lies':
      supportedInterfaces = [iface(jsonrpc, 'JSONRPC'), iface(grpcAddr, 'GRPC'), iface(rest, 'HTTP+JSON')];
      break;
    case 'grpc-at-http':
      // host:port of the HTTP listener, so a gRPC client really dials it (an http:// URL
      // fails earlier, in grpc-js name resolution).
      supportedInterfaces = [
        iface(baseUrl.replace(/^http:\/\//, ''), 'GRPC'),
        iface(jsonrpc, 'JSONRPC'),
        iface(rest, 'HTTP+JSON'),
      ];
      break;
    case 'grpc-no-service':
      supportedInterfaces = [iface(bareGrpc, 'GRPC'), iface(jsonrpc, 'JSONRPC'), iface(rest, 'HTTP+JSON')];
      break;
    case 'seed':
      supportedInterfaces = [iface(baseUrl, 'GRPC'), iface(jsonrpc, 'JSONRPC'), iface(bareGrpc, 'GRPC')];
      break;
    case 'legacy-compat':
      supportedInterfaces = [
        iface(jsonrpc, 'JSONRPC'),
        iface(rest, 'HTTP+JSON'),
        iface(jsonrpc, 'JSONRPC', '0.3'),
        iface(rest, 'HTTP+JSON', '0.3'),
      ];
      break;
  }
  return {
    name: `a2a-js ${sdkVersion} interop agent (${mode})`,
    description: 'Echoes messages; a2abind interop peer',
    supportedInterfaces,
    provider: undefined,
    version: '1.0.0',
    capabilities:
      CLAIMS_EVERY_CAPABILITY.includes(mode)
        ? { streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [] }
        : { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes the message text',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

async function main() {
  const mode = parseMode(process.argv.slice(2));
  const closers = [];
  let closing = false;
  const shutdown = (code) => {
    if (closing) return;
    closing = true;
    for (const close of closers.reverse()) {
      try {
        close();
      } catch {
        // best effort: the process exits next
      }
    }
    process.exit(code);
  };
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.stdin.on('end', () => shutdown(0));
  process.stdin.on('close', () => shutdown(0));
  process.stdin.on('error', () => shutdown(0));
  process.stdin.resume();
  const lifetime = Number(process.env.A2ABIND_INTEROP_MAX_LIFETIME_MS || 600_000);
  setTimeout(() => {
    process.stderr.write(`server.mjs: max lifetime ${lifetime} ms reached, exiting\n`);
    shutdown(3);
  }, lifetime).unref();

  // The card object is shared by the request handler (which validates versions against
  // it) and the card endpoint; its interfaces are filled in once every port is known.
  const card = buildCard(mode, {});
  const executor = new EchoExecutor();
  // capability-lies: the handler holds the card with every capability off, so it refuses
  // them while the published card claims them.
  const handlerCard =
    mode === 'capability-lies'
      ? { ...card, capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false, extensions: [] } }
      : card;
  const extended = mode === 'capable' ? async () => ({ ...card, name: `${card.name} (extended)` }) : undefined;
  const handler = new DefaultRequestHandler(handlerCard, new InMemoryTaskStore(), executor, undefined, undefined, undefined, extended);
  const userBuilder = UserBuilder.noAuthentication;

  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card }));
  if (mode === 'seed') {
    app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder }));
  } else {
    const legacyCompat = mode === 'legacy-compat' ? { enabled: true } : undefined;
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat }));
    app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder, legacyCompat }));
  }
  const httpSrv = await listenHTTP(app);
  closers.push(() => {
    httpSrv.closeAllConnections?.();
    httpSrv.close();
  });
  const baseUrl = `http://127.0.0.1:${httpSrv.address().port}`;

  const addrs = { baseUrl, jsonrpc: null, rest: null, grpcAddr: null, bareGrpc: null };
  if (mode === 'seed') {
    addrs.jsonrpc = baseUrl;
  } else {
    addrs.jsonrpc = `${baseUrl}/a2a/jsonrpc`;
    addrs.rest = `${baseUrl}/a2a/rest`;
  }
  if (HONEST_INTERFACES.includes(mode)) {
    const grpcServer = new grpc.Server();
    grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder }));
    closers.push(() => grpcServer.forceShutdown());
    addrs.grpcAddr = await listenGRPC(grpcServer);
  }
  if (mode === 'grpc-no-service' || mode === 'seed') {
    // A grpc-js server with no service registered: it accepts HTTP/2 connections and
    // answers every call UNIMPLEMENTED, like the seed's :9443.
    const bare = new grpc.Server();
    closers.push(() => bare.forceShutdown());
    addrs.bareGrpc = await listenGRPC(bare);
  }
  card.supportedInterfaces = buildCard(mode, addrs).supportedInterfaces;
  handlerCard.supportedInterfaces = card.supportedInterfaces;

  process.stdout.write(
    JSON.stringify({
      mode,
      sdkVersion,
      baseUrl,
      cardUrl: `${baseUrl}/.well-known/agent-card.json`,
      jsonrpc: addrs.jsonrpc,
      rest: addrs.rest,
      grpc: addrs.grpcAddr,
      bareGrpc: addrs.bareGrpc,
      card,
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`server.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
