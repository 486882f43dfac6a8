package fleet

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// collectorConfig holds the sections and settings the example
// configurations use, as the Collector's components name them; decoding
// strictly into it catches a misspelt or misplaced key. It is not the
// Collector's own schema: that needs its component factories.
type collectorConfig struct {
	Receivers struct {
		OTLP *struct {
			Protocols struct {
				GRPC *struct {
					Endpoint string `json:"endpoint"`
				} `json:"grpc"`
				HTTP *struct {
					Endpoint string `json:"endpoint"`
				} `json:"http"`
			} `json:"protocols"`
		} `json:"otlp"`
		OTLPJSONFile *struct {
			Include []string `json:"include"`
			StartAt string   `json:"start_at"`
		} `json:"otlpjsonfile"`
	} `json:"receivers"`
	Processors map[string]*struct {
		Timeout string `json:"timeout"`
	} `json:"processors"`
	Exporters map[string]struct {
		Endpoint string `json:"endpoint"`
		TLS      *struct {
			Insecure bool `json:"insecure"`
		} `json:"tls"`
		Path     string `json:"path"`
		Format   string `json:"format"`
		Rotation *struct {
			MaxMegabytes int `json:"max_megabytes"`
			MaxDays      int `json:"max_days"`
			MaxBackups   int `json:"max_backups"`
		} `json:"rotation"`
	} `json:"exporters"`
	Service struct {
		Pipelines map[string]struct {
			Receivers  []string `json:"receivers"`
			Processors []string `json:"processors"`
			Exporters  []string `json:"exporters"`
		} `json:"pipelines"`
	} `json:"service"`
}

func TestCollectorConfigs(t *testing.T) {
	for _, name := range []string{"collector/config.yaml", "collector/replay.yaml"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			var c collectorConfig
			decodeStrict(t, name, &c)
			receivers := map[string]bool{"otlp": c.Receivers.OTLP != nil, "otlpjsonfile": c.Receivers.OTLPJSONFile != nil}
			traces, ok := c.Service.Pipelines["traces"]
			if !ok || len(traces.Receivers) == 0 || len(traces.Exporters) == 0 {
				t.Fatal("no traces pipeline with receivers and exporters")
			}
			for _, r := range traces.Receivers {
				if !receivers[r] {
					t.Errorf("pipeline receiver %q is not configured", r)
				}
			}
			for _, p := range traces.Processors {
				if _, ok := c.Processors[p]; !ok {
					t.Errorf("pipeline processor %q is not configured", p)
				}
			}
			for _, e := range traces.Exporters {
				x, ok := c.Exporters[e]
				kind, _, _ := strings.Cut(e, "/")
				switch {
				case !ok:
					t.Errorf("pipeline exporter %q is not configured", e)
				case kind == "otlp" && x.Endpoint == "":
					t.Errorf("exporter %s has no endpoint", e)
				case kind == "file" && (x.Path == "" || x.Format != "json"):
					t.Errorf("exporter %s: path %q format %q, want JSON lines", e, x.Path, x.Format)
				}
			}
		})
	}
	var c collectorConfig
	decodeStrict(t, "collector/config.yaml", &c)
	if o := c.Receivers.OTLP; o == nil || o.Protocols.GRPC == nil || o.Protocols.HTTP == nil {
		t.Error("config.yaml: the otlp receiver does not take both grpc and http")
	}
}

// The workflow is checked by actionlint in CI (.ci/run); here when it is
// on PATH.
func TestWorkflowActionlint(t *testing.T) {
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		t.Skip("actionlint not on PATH (.ci/run installs it)")
	}
	out, err := exec.Command(bin, "github/loop-fleet.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
}
