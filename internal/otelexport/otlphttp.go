package otelexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// HTTPSender posts OTLP/HTTP protobuf requests (the Collector's
// /v1/traces) and retries what the protocol says to retry: 429, 502, 503
// and 504 (after Retry-After when the answer gives one), a connection that
// failed or broke, and a request that timed out.
type HTTPSender struct {
	URL       string
	Headers   map[string]string
	Gzip      bool
	Client    *http.Client
	Timeout   time.Duration // one request
	RetryFor  time.Duration // all tries of one batch; 0: no retry
	UserAgent string
}

// Retries back off from RetryFirst to RetryMax between tries (see Retry).
const (
	RetryFirst = 200 * time.Millisecond
	RetryMax   = 5 * time.Second
)

// Send marshals td once and posts it until it is taken, refused for good,
// or RetryFor has passed.
func (h *HTTPSender) Send(ctx context.Context, td ptrace.Traces) error {
	body, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	if h.Gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(body)
		if err := zw.Close(); err != nil {
			return err
		}
		body = b.Bytes()
	}
	return Retry(ctx, h.RetryFor, func() (time.Duration, error) { return h.post(ctx, body) })
}

// Retry calls try until it succeeds, fails for good (a wait below 0), or
// retryFor has passed (the last try at that deadline); between tries it backs off from RetryFirst to
// RetryMax with jitter as the SDK's exporters did, and never waits less
// than the wait try returned (the collector's Retry-After).
func Retry(ctx context.Context, retryFor time.Duration, try func() (time.Duration, error)) error {
	deadline := time.Now().Add(retryFor)
	wait := RetryFirst
	for {
		after, err := try()
		if err == nil || after < 0 || ctx.Err() != nil {
			return err
		}
		// the last try comes at the deadline; a Retry-After past it ends now
		left := time.Until(deadline)
		switch {
		case left > 0 && after > left:
			// it said "gave up after retrying for 1m" at once
			return fmt.Errorf("%w (asked to wait %s: past --retry-for %s, not retried)", err, after.Round(time.Second), retryFor)
		case left <= 0 || after > left:
			if retryFor > 0 {
				err = fmt.Errorf("%w (gave up after retrying for %s)", err, retryFor)
			}
			return err
		}
		d := min(max(wait/2+rand.N(wait), after), left)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, RetryMax)
	}
}

// post sends one request. A retryable failure comes with the wait the
// answer asked for (0 if none); one not to retry with -1.
func (h *HTTPSender) post(ctx context.Context, body []byte) (time.Duration, error) {
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	for k, v := range h.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if h.UserAgent != "" {
		req.Header.Set("User-Agent", h.UserAgent)
	}
	if h.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			// Go's "context deadline exceeded" says nothing to a person
			return 0, fmt.Errorf("%s: no answer within %s (--timeout)", h.URL, h.Timeout)
		}
		if unreachable(err) {
			return 0, err
		}
		if errors.As(err, new(x509.UnknownAuthorityError)) {
			return -1, fmt.Errorf("%w: give the collector's CA in OTEL_EXPORTER_OTLP_CERTIFICATE", err)
		}
		if plainAnswer(err) && strings.HasPrefix(h.URL, "https:") {
			// a local collector answers plain HTTP; the default is https
			return -1, fmt.Errorf("%s: the collector answered in plain HTTP, not TLS: give an http:// endpoint (or --insecure for the default localhost:4318)", h.URL)
		}
		return -1, err
	}
	defer resp.Body.Close()
	// the answer (an ExportTraceServiceResponse, or the error's text) is
	// read so the connection can be used again; only errors show it
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			// a web server's catch-all page: nothing took the spans
			return -1, fmt.Errorf("%s: %s with an HTML page, not an OTLP answer: give the collector's OTLP/HTTP endpoint (port 4318)", h.URL, resp.Status)
		}
		// taken, maybe in part: what was rejected is final (OTLP: no retry)
		return -1, partialSuccess(msg)
	}
	if resp.StatusCode/100 == 3 {
		return -1, fmt.Errorf("%s: %s to %q, not followed: it would lose the spans or send the headers elsewhere; give the collector's own URL as --endpoint", h.URL, resp.Status, resp.Header.Get("Location"))
	}
	text := answer(resp.Header, msg)
	err = fmt.Errorf("%s: %s%s", h.URL, resp.Status, text)
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After")), err
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		// these spans, not the collector. A request too large is sent
		// again in halves: a proxy's body limit (nginx's 1 MiB) says 413,
		// the Collector's (max_request_body_size) a 400 saying so.
		large := resp.StatusCode == http.StatusRequestEntityTooLarge || strings.HasSuffix(text, "request body too large")
		return -1, &RunFault{Err: err, TooLarge: large}
	}
	return -1, err
}

// KeepPost is the HTTP client's redirect policy: a 307 or 308 to the same
// host, not from https to http, is followed; any other redirect is
// answered to post. Go follows a 301, 302 or 303 as a GET without the
// spans (an auth proxy's login page then answered 200, and the export
// "succeeded"), and to another host with the headers, API keys included.
func KeepPost(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if len(via) >= 5 || req.Method != http.MethodPost || req.URL.Hostname() != first.Hostname() ||
		(first.Scheme == "https" && req.URL.Scheme != "https") {
		return http.ErrUseLastResponse
	}
	return nil
}

// answer is the start of a text answer, for the error message.
// The Collector answers an error as a protobuf google.rpc.Status, whose
// message (field 2) is its text.
func answer(hdr http.Header, msg []byte) string {
	switch ct := hdr.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/x-protobuf"):
		msg, _ = protoField(msg, 2)
	case !strings.HasPrefix(ct, "text/") && !strings.HasPrefix(ct, "application/json"):
		return ""
	}
	s := oneLine(string(msg))
	if s == "" {
		return ""
	}
	return ": " + s
}

// retryAfter reads Retry-After: seconds or an HTTP date (0 if neither).
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(min(n, 3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// plainAnswer: a TLS handshake met a server speaking plain HTTP (net/http
// says so in a text of its own when the answer starts as HTTP does).
func plainAnswer(err error) bool {
	_, ok := errors.AsType[tls.RecordHeaderError](err)
	return ok || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// unreachable: the error is the network's (no connection was made or it
// broke), not the collector's answer.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// Close drops the idle connections.
func (h *HTTPSender) Close() error {
	h.Client.CloseIdleConnections()
	return nil
}
