//go:build !grpc

package loopexport_test

import (
	"strings"
	"testing"
)

// TestGRPCNeedsItsBuild: the default build has no gRPC; --protocol grpc
// is a usage error of one line that names the build that has it.
func TestGRPCNeedsItsBuild(t *testing.T) {
	root, _ := fixture(t)
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--protocol", "grpc", "--endpoint", "http://127.0.0.1:1")
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "-tags grpc") {
		t.Errorf("--protocol grpc: exit %d, stderr %q; want exit 2 and one line naming the grpc build", code, errs)
	}
}
