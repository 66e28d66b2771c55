package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// SetKey changes the accepted API key; "" accepts any request, as ollama
// does.
func (s *Server) SetKey(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = k
}

// AddModels makes more chat model names known.
func (s *Server) AddModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		s.chat[n] = true
	}
}

func (s *Server) knows(chat bool, model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if chat {
		return s.chat[model]
	}
	return s.embedding[model]
}

func (s *Server) keyValid(got string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key == "" || got == s.key
}

// openAIError writes OpenAI's error body.
func openAIError(w http.ResponseWriter, status int, typ, code, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "code": code, "param": nil,
	}})
}

func (s *Server) openAIReplyError(w http.ResponseWriter, rep Reply) {
	msg := rep.Message
	typ, code := "server_error", ""
	switch rep.Status {
	case http.StatusTooManyRequests:
		typ, code = "rate_limit_exceeded", "rate_limit_exceeded"
		if msg == "" {
			msg = "Rate limit reached for requests"
		}
	case http.StatusUnauthorized:
		typ, code = "invalid_request_error", "invalid_api_key"
	case http.StatusNotFound:
		typ, code = "invalid_request_error", "model_not_found"
	}
	if msg == "" {
		msg = "The server had an error while processing your request."
	}
	openAIError(w, rep.Status, typ, code, msg, rep.RetryAfter)
}

type openAIMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// content is a message's text: a string, or an array of text parts.
func (m openAIMessage) content() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func bearer(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string          `json:"model"`
		Messages []openAIMessage `json:"messages"`
		Stream   bool            `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.", "")
		return
	}
	req := Request{At: time.Now(), Path: r.URL.Path, Model: body.Model, Stream: body.Stream, KeyValid: s.keyValid(bearer(r))}
	for _, m := range body.Messages {
		switch m.Role {
		case "system", "developer":
			req.System = m.content()
		case "user":
			req.User = m.content()
		}
	}
	s.record(req)
	if !req.KeyValid {
		// OpenAI's own message echoes a masked key; a careful client
		// shows none of it.
		openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided: "+maskForServer(bearer(r))+". You can find your API key in your account settings.", "")
		return
	}
	if !s.knows(true, body.Model) {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", body.Model), "")
		return
	}
	rep := s.next(req)
	if rep.Status != 0 {
		s.openAIReplyError(w, rep)
		return
	}
	id := fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano())
	created := time.Now().Unix()
	if !body.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": rep.Text}}},
			"usage": map[string]any{"prompt_tokens": len(strings.Fields(req.User)), "completion_tokens": len(strings.Fields(rep.Text)), "total_tokens": 0},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if !s.streamed(w, r, rep, func(p string) { chunk(map[string]any{"content": p}, nil) }) {
		return
	}
	chunk(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.", "")
		return
	}
	var inputs []string
	if json.Unmarshal(body.Input, &inputs) != nil {
		var one string
		if json.Unmarshal(body.Input, &one) != nil {
			openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "'input' must be a string or an array of strings", "")
			return
		}
		inputs = []string{one}
	}
	req := Request{At: time.Now(), Path: r.URL.Path, Model: body.Model, Inputs: inputs, KeyValid: s.keyValid(bearer(r))}
	s.record(req)
	if !req.KeyValid {
		openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.", "")
		return
	}
	if !s.knows(false, body.Model) {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", body.Model), "")
		return
	}
	s.mu.Lock()
	var fail *Reply
	if s.embedPass > 0 {
		s.embedPass--
	} else if len(s.embedErr) > 0 {
		fail = &s.embedErr[0]
		s.embedErr = s.embedErr[1:]
	}
	dims := s.embedDims[body.Model]
	embed := s.embedFunc
	s.mu.Unlock()
	if embed == nil {
		embed = EmbedDims
	}
	if dims == 0 {
		dims = Dims
	}
	if fail != nil {
		s.openAIReplyError(w, *fail)
		return
	}
	data := make([]any, len(inputs))
	words := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embed(in, dims)}
		words += len(strings.Fields(in))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": body.Model,
		"usage": map[string]any{"prompt_tokens": words, "total_tokens": words},
	})
}

// maskForServer is how OpenAI echoes a wrong key: its first and last
// characters.
func maskForServer(k string) string {
	if len(k) < 8 {
		return "***"
	}
	return k[:3] + "*****" + k[len(k)-4:]
}
