package lab

// The HTTP bindings the lab mounts are internal/bindtable' table.

import (
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/a2abind/a2abind/card"
)

// grpcServices is the A2A gRPC service of every protocol version WithGRPC registers: a
// new version is one entry here and one GRPCMode.
var grpcServices = map[string]func(a2asrv.RequestHandler, *grpc.Server){
	card.V1:  func(h a2asrv.RequestHandler, s *grpc.Server) { a2agrpc.NewHandler(h).RegisterWith(s) },
	card.V03: func(h a2asrv.RequestHandler, s *grpc.Server) { a2agrpcv0.NewHandler(h).RegisterWith(s) },
}

// grpcModeVersions are the versions whose service each GRPCMode registers, in order.
var grpcModeVersions = map[GRPCMode][]string{
	GRPCNoService: nil,
	GRPCV1:        {card.V1},
	GRPCV03:       {card.V03},
	GRPCBoth:      {card.V1, card.V03},
}
