//go:build !grpc

package loopexport

import (
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/otelexport"
)

// newGRPCSender: gRPC doubles loop-export's size, so only the build with
// the grpc tag carries it.
func newGRPCSender(grpcConfig) (otelexport.Sender, error) {
	return nil, cli.Usagef("--protocol grpc: this loop-export has no gRPC; build it with `make export-grpc` (go build -tags grpc ./cmd/loop-export)")
}
