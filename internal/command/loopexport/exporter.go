package loopexport

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/otelexport"
)

// newExporter builds the OTLP sender the options and the standard
// variables describe, and names its destination for the checkpoint ("" for
// --stdout, which keeps none).
func newExporter(env *cli.Env, opts *Options) (string, otelexport.Sender, error) {
	if opts.Stdout {
		return "", &otelexport.JSONExporter{W: env.Stdout}, nil
	}
	if err := protocol(opts); err != nil {
		return "", nil, env.UsageError("%v", err)
	}
	headers := envHeaders()
	for _, h := range opts.Header {
		k, v, ok := strings.Cut(h, "=")
		if !ok || k == "" {
			return "", nil, env.UsageError("--header %q: want NAME=VALUE", h)
		}
		headers[k] = v
	}
	endpoint := opts.Endpoint
	if endpoint != "" {
		if u, err := url.Parse(endpoint); err != nil || u.Scheme == "" || u.Host == "" || (opts.Protocol != "grpc" && !httpScheme(u)) {
			return "", nil, env.UsageError("--endpoint %q: want a URL such as http://localhost:4318", endpoint)
		}
	}
	if endpoint != "" && opts.Protocol != "grpc" {
		endpoint = tracesURL(endpoint)
	}
	dest := opts.Protocol + " " + destination(endpoint, opts.Protocol)
	insecure := opts.Insecure || envBool("INSECURE")
	tlsConf, err := envTLS()
	if err != nil {
		return "", nil, env.UsageError("%v", err)
	}
	if opts.Protocol == "grpc" {
		s, err := newGRPCSender(grpcConfig{endpoint: endpoint, headers: headers, insecure: insecure, tls: tlsConf, opts: opts})
		return dest, s, err
	}
	target, err := httpURL(endpoint, insecure)
	if err != nil {
		return "", nil, env.UsageError("%v", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tlsConf != nil {
		tr.TLSClientConfig = tlsConf
	}
	return dest, &otelexport.HTTPSender{
		URL:       target,
		Headers:   headers,
		Gzip:      strings.EqualFold(envVar("COMPRESSION"), "gzip"),
		Client:    &http.Client{Transport: tr, CheckRedirect: otelexport.KeepPost},
		Timeout:   opts.Timeout.D(),
		RetryFor:  opts.RetryFor.D(),
		UserAgent: "loop-export/" + cli.VersionString(),
	}, nil
}

// protocol sets --protocol, when not given, as the SDK's exporters read
// it: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL,
// else http/protobuf (grpc set there was ignored: HTTP/1.1 then went to a
// gRPC port). http/json, which loop-export does not send, is refused.
func protocol(opts *Options) error {
	if opts.Protocol != "" {
		return nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		switch v := strings.TrimSpace(os.Getenv(name)); v {
		case "":
			continue
		case "http/protobuf", "grpc":
			opts.Protocol = v
			return nil
		default:
			return fmt.Errorf("%s=%q: loop-export sends http/protobuf or grpc (--protocol overrides it)", name, v)
		}
	}
	opts.Protocol = "http/protobuf"
	return nil
}

// grpcConfig is what a gRPC sender is built from (grpc.go).
type grpcConfig struct {
	endpoint string // --endpoint as given, or ""
	headers  map[string]string
	insecure bool
	tls      *tls.Config // nil: the system's roots
	opts     *Options
}

// tracesURL follows the OTLP exporters' convention for a base URL
// (OTEL_EXPORTER_OTLP_ENDPOINT): a URL without a path gets /v1/traces; a
// URL with one is kept as given (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
func tracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	u.Path = "/v1/traces"
	return u.String()
}

// httpURL is where the spans are posted: --endpoint (already resolved),
// else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces joined to its path, else
// localhost:4318 (https unless insecure), as the SDK's exporter chose.
func httpURL(flag string, insecure bool) (string, error) {
	if flag != "" {
		return flag, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || !httpScheme(u) {
			return "", fmt.Errorf("%s=%q: want a URL such as http://localhost:4318", name, v)
		}
		switch {
		case name == "OTEL_EXPORTER_OTLP_ENDPOINT":
			u.Path = path.Join("/", u.Path, "v1/traces")
		case u.Path == "":
			u.Path = "/"
		}
		return u.String(), nil
	}
	if insecure {
		return "http://localhost:4318/v1/traces", nil
	}
	return "https://localhost:4318/v1/traces", nil
}

// httpScheme: OTLP/HTTP is sent to http or https URLs only (any other
// scheme failed only at the first post, after a minute of retries).
func httpScheme(u *url.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

// destination is the endpoint the exporter will use, as the OTLP
// exporters read it from the flag or the environment.
func destination(flag, protocol string) string {
	for _, v := range []string{flag, os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")} {
		if v != "" {
			return v
		}
	}
	if protocol == "grpc" {
		return "localhost:4317"
	}
	return "localhost:4318"
}

// envVar reads OTEL_EXPORTER_OTLP_TRACES_<name>, else
// OTEL_EXPORTER_OTLP_<name>: the signal's own variable wins.
func envVar(name string) string {
	if v := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_" + name); v != "" {
		return v
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_" + name)
}

func envBool(name string) bool { return strings.EqualFold(strings.TrimSpace(envVar(name)), "true") }

// envHeaders reads the headers variable: k=v pairs, comma-separated,
// percent-encoded; a malformed pair is skipped, as the SDK did.
func envHeaders() map[string]string {
	h := map[string]string{}
	for _, pair := range strings.Split(envVar("HEADERS"), ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			continue
		}
		k, err1 := url.PathUnescape(strings.TrimSpace(k))
		v, err2 := url.PathUnescape(strings.TrimSpace(v))
		if err1 == nil && err2 == nil && k != "" {
			h[k] = v
		}
	}
	return h
}

// envTLS reads the certificate variables: a CA bundle for the collector,
// a client certificate and key for mutual TLS (nil: the system's roots).
func envTLS() (*tls.Config, error) {
	ca, cert, key := envVar("CERTIFICATE"), envVar("CLIENT_CERTIFICATE"), envVar("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %v", err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE %s: no PEM certificate in it", ca)
		}
	}
	if cert != "" || key != "" {
		c, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %v", err)
		}
		conf.Certificates = []tls.Certificate{c}
	}
	return conf, nil
}
