package server

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// provided is what this server serves of the capabilities a card declares:
//   - streaming always: every binding it mounts is a2a-go's handler, which serves
//     SendStreamingMessage and SubscribeToTask (JSON-RPC and HTTP+JSON as SSE, gRPC as
//     server streams; v1.0 and v0.3);
//   - push notifications only with a config store and a sender (WithPushNotifications);
//   - the extended card only with a producer (WithExtendedAgentCard,
//     WithDerivedExtendedCard).
func (o *options) provided() a2a.AgentCapabilities {
	return a2a.AgentCapabilities{
		Streaming:         true,
		PushNotifications: o.pushStore != nil && o.pushSender != nil,
		ExtendedAgentCard: o.extendedCard != nil || o.extendedDerived,
	}
}

// extendedProducer is what serves GetExtendedAgentCard, nil when nothing is configured.
func (srv *Server) extendedProducer() a2asrv.ExtendedAgentCardProducer {
	if srv.o.extendedCard != nil {
		return srv.o.extendedCard
	}
	if !srv.o.extendedDerived {
		return nil
	}
	ac := srv.agentCard()
	return a2asrv.ExtendedAgentCardProducerFn(func(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
		return ac, nil
	})
}
