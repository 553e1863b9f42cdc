// An @a2a-js/sdk 0.3.14 agent on loopback (installed as the npm alias a2a-js-03), for
// a2abind's interop tests: a real v0.3 server.
//
//   node server03.mjs [--card honest]
//
// It serves one DefaultRequestHandler over JSON-RPC (/a2a/jsonrpc), HTTP+JSON
// (/a2a/rest, whose routes the SDK puts under /a2a/rest/v1/..., as the v0.3
// specification does) and gRPC (a bare 127.0.0.1:port, plaintext). Its v0.3 card
// declares JSON-RPC at url (preferredTransport) and the other two in
// additionalInterfaces. Every listener is on 127.0.0.1, port 0.
//
// Once listening it prints one JSON line on stdout, as server.mjs does:
//   {"mode","sdkVersion","baseUrl","cardUrl","jsonrpc","rest","grpc","bareGrpc","card"}
// It exits when stdin closes, on SIGTERM or SIGINT, or after
// A2ABIND_INTEROP_MAX_LIFETIME_MS (default 10 minutes).
//
// The executor echoes: every message becomes a task (submitted, working, one artifact
// "echo: <text>", completed).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load, modulesPath } from './deps.mjs';

const express = load('express');
const grpc = load('@grpc/grpc-js');
const { DefaultRequestHandler, InMemoryTaskStore } = load('a2a-js-03/server');
const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } = load('a2a-js-03/server/express');
const { grpcService, A2AService } = load('a2a-js-03/server/grpc');
const sdkVersion = JSON.parse(readFileSync(path.join(modulesPath, 'a2a-js-03', 'package.json'), 'utf8')).version;

function fail(msg) {
  process.stderr.write(`server03.mjs: ${msg}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
if (argv.length && !(argv.length === 2 && argv[0] === '--card' && argv[1] === 'honest')) {
  fail(`unknown arguments ${JSON.stringify(argv)}; usage: server03.mjs [--card honest]`);
}

function status(state) {
  return { state, timestamp: new Date().toISOString() };
}

/** EchoExecutor completes every task with an echo artifact. */
class EchoExecutor {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = (userMessage?.parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text).join(' ');
    if (!ctx.task) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: status('submitted'), history: [userMessage], artifacts: [] });
    }
    bus.publish({ kind: 'status-update', taskId, contextId, status: status('working'), final: false });
    bus.publish({
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: `${taskId}-echo`, name: 'echo', parts: [{ kind: 'text', text: `echo: ${text}` }] },
      append: false,
      lastChunk: true,
    });
    bus.publish({ kind: 'status-update', taskId, contextId, status: status('completed'), final: true });
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish({ kind: 'status-update', taskId, contextId: '', status: status('canceled'), final: true });
    bus.finished();
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

async function main() {
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
    process.stderr.write(`server03.mjs: max lifetime ${lifetime} ms reached, exiting\n`);
    shutdown(3);
  }, lifetime).unref();

  // The card is shared by the request handler and the card endpoint; its URLs are
  // filled in once every port is known.
  const card = {
    name: `a2a-js ${sdkVersion} interop agent (v0.3)`,
    description: 'echoes every message',
    version: '1.0.0',
    protocolVersion: '0.3.0',
    url: '',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes the message', tags: ['echo'] }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  const userBuilder = UserBuilder.noAuthentication;

  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder }));
  const httpSrv = await listenHTTP(app);
  closers.push(() => {
    httpSrv.closeAllConnections?.();
    httpSrv.close();
  });
  const baseUrl = `http://127.0.0.1:${httpSrv.address().port}`;
  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder }));
  closers.push(() => grpcServer.forceShutdown());
  const grpcAddr = await listenGRPC(grpcServer);

  const jsonrpc = `${baseUrl}/a2a/jsonrpc`;
  const rest = `${baseUrl}/a2a/rest`;
  card.url = jsonrpc;
  card.additionalInterfaces = [
    { url: jsonrpc, transport: 'JSONRPC' },
    { url: rest, transport: 'HTTP+JSON' },
    { url: grpcAddr, transport: 'GRPC' },
  ];

  process.stdout.write(
    JSON.stringify({
      mode: 'honest',
      sdkVersion,
      baseUrl,
      cardUrl: `${baseUrl}/.well-known/agent-card.json`,
      jsonrpc,
      rest,
      grpc: grpcAddr,
      bareGrpc: null,
      card,
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`server03.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
