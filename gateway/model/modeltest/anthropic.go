package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// anthropicError writes Anthropic's error body.
func anthropicError(w http.ResponseWriter, status int, typ, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []openAIMessage `json:"messages"`
		Stream   bool            `json:"stream"`
		Max      int             `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body", "")
		return
	}
	req := Request{At: time.Now(), Path: r.URL.Path, Model: body.Model, Stream: body.Stream,
		KeyValid: s.keyValid(anthropicKey(r)), System: openAIMessage{Content: body.System}.content()}
	for _, m := range body.Messages {
		if m.Role == "user" {
			req.User = m.content()
		}
	}
	s.record(req)
	if r.Header.Get("Anthropic-Version") == "" {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required", "")
		return
	}
	if !req.KeyValid {
		anthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key", "")
		return
	}
	if body.Max <= 0 {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "max_tokens: Field required", "")
		return
	}
	if !s.knows(true, body.Model) {
		anthropicError(w, http.StatusNotFound, "not_found_error", "model: "+body.Model, "")
		return
	}
	rep := s.next(req)
	if rep.Status != 0 {
		typ := "api_error"
		switch rep.Status {
		case http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case 529:
			typ = "overloaded_error"
		case http.StatusUnauthorized:
			typ = "authentication_error"
		case http.StatusNotFound:
			typ = "not_found_error"
		}
		msg := rep.Message
		if msg == "" {
			msg = http.StatusText(rep.Status)
		}
		anthropicError(w, rep.Status, typ, msg, rep.RetryAfter)
		return
	}
	id := fmt.Sprintf("msg_%d", time.Now().UnixNano())
	if !body.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": body.Model,
			"content":     []any{map[string]any{"type": "text", "text": rep.Text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": body.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	event("ping", map[string]any{"type": "ping"})
	if !s.streamed(w, r, rep, func(p string) {
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": p}})
	}) {
		return
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 15}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicKey is the key as Anthropic takes it: x-api-key, or a bearer
// token (what anthropic-sdk-go v2 sends).
func anthropicKey(r *http.Request) string {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		return k
	}
	return bearer(r)
}
