package modelapi

import (
	"fmt"
	"net/http"
)

// Faults past the status ones every provider shares: an account out of
// credit, a model that does not exist, a proxy in front of the API.
const (
	// FaultBilling: the account has no credit left (Anthropic's 400 "credit
	// balance is too low", OpenAI's 429 insufficient_quota, Google's 400
	// FAILED_PRECONDITION asking for billing): no wait mends it.
	FaultBilling = "billing"
	// FaultModel: 404, the model asked for does not exist.
	FaultModel = "model"
	// FaultBadGateway: 502 with a proxy's HTML page, not the API's JSON.
	FaultBadGateway = "bad_gateway"
	// FaultReset: the connection is closed before any byte of an answer.
	FaultReset = "reset"
	// FaultRedirect: 302 to a sign-in page (a captive portal) that
	// answers 200 with HTML.
	FaultRedirect = "redirect"
)

// portalPath is where FaultRedirect sends the client.
const portalPath = "/portal/login"

const portalPage = "<!DOCTYPE html><html><head><title>Sign in to the network</title></head><body><form>Guest Wi-Fi: accept the terms</form></body></html>\n"

const badGatewayPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// writeExtraFault answers one of the faults above.
func writeExtraFault(w http.ResponseWriter, r *http.Request, wi wire, kind, model string) {
	switch kind {
	case FaultBilling, FaultModel:
		status, body := providerError(wi, kind, model)
		writeJSON(w, status, body)
	case FaultBadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, badGatewayPage)
	case FaultReset:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case FaultRedirect:
		http.Redirect(w, r, portalPath, http.StatusFound)
	}
}

// providerError is the body each provider answers a billing or model
// fault with, as their documentation shows it.
func providerError(wi wire, kind, model string) (int, any) {
	switch wi.(type) {
	case anthropicWire:
		if kind == FaultModel {
			return 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "model: " + model}, "request_id": "req_scripted_fault"}
		}
		return 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
			"message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_scripted_fault"}
	case geminiWire:
		if kind == FaultModel {
			return 404, map[string]any{"error": map[string]any{"code": 404, "status": "NOT_FOUND",
				"message": "models/" + model + " is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."}}
		}
		return 400, map[string]any{"error": map[string]any{"code": 400, "status": "FAILED_PRECONDITION",
			"message": "Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio."}}
	}
	if kind == FaultModel {
		return 404, map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": "model_not_found", "param": nil,
			"message": "The model `" + model + "` does not exist or you do not have access to it."}}
	}
	return 429, map[string]any{"error": map[string]any{"type": "insufficient_quota", "code": "insufficient_quota", "param": nil,
		"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."}}
}
