package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/limits"
	"hark/gateway/usage"
)

func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	writeEnvelope(w, r, api.CodeOK, api.MsgSuccess, stateOf(r).workspace.toolList)
}

// toolList renders the workspace's tool list once: the registry and the
// engines do not change while the gateway runs.
func (s *Server) toolList(ws *workspace) (json.RawMessage, error) {
	list := ToolList{Service: api.SearchService, Tools: make([]ToolEntry, 0, len(s.tools))}
	for _, t := range s.tools {
		list.Tools = append(list.Tools, t.entry(ws.searchConfigured && t.available(ws.web), ws.localSearch))
	}
	return json.Marshal(list)
}

// findTool is the tool of a slug, or the 404 that lists the tools.
func (s *Server) findTool(slug string) (*tool, error) {
	if t := s.toolMap[slug]; t != nil {
		return t, nil
	}
	names := make([]string, len(s.tools))
	for i, x := range s.tools {
		names[i] = x.slug
	}
	return nil, &httpError{status: CodeNotFound, msg: fmt.Sprintf("unknown tool %q (tools: %s)", truncate(slug, maxEcho), strings.Join(names, ", "))}
}

// checkCall finds a tool and checks a call of it: the inputs against its
// fields, the workspace's search backend and engine. raw is the valid
// inputs as the engine reads them.
func (s *Server) checkCall(r *http.Request, slug string, inputsJSON json.RawMessage) (t *tool, ws *workspace, valid map[string]any, raw json.RawMessage, err error) {
	if t, err = s.findTool(slug); err != nil {
		return nil, nil, nil, nil, err
	}
	inputs, err := decodeInputs(inputsJSON)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if valid, err = t.validate(inputs); err != nil {
		return nil, nil, nil, nil, err
	}
	ws = stateOf(r).workspace
	if !ws.searchConfigured {
		return nil, nil, nil, nil, engine.ErrCredentialsMissing
	}
	if !t.available(ws.web) {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w (no engine registered)", t.slug, engine.ErrUnavailable)
	}
	if raw, err = json.Marshal(valid); err != nil {
		return nil, nil, nil, nil, err
	}
	return t, ws, valid, raw, nil
}

// invokeCall is a tool call read and checked before its admission.
type invokeCall struct {
	tool  *tool
	ws    *workspace
	valid map[string]any
	raw   json.RawMessage
}

// checkInvoke reads and checks a tool call: the tool of the path, then
// the body (in memory by now: limits.ReadBody) and its inputs.
func (s *Server) checkInvoke(r *http.Request) (*invokeCall, error) {
	if _, err := s.findTool(r.PathValue("tool")); err != nil {
		return nil, err // before the body: the path alone is wrong
	}
	var body struct {
		Inputs json.RawMessage `json:"inputs"`
	}
	if err := s.decodeBody(nil, r, &body); err != nil {
		return nil, err
	}
	t, ws, valid, raw, err := s.checkCall(r, r.PathValue("tool"), body.Inputs)
	if err != nil {
		return nil, err
	}
	return &invokeCall{tool: t, ws: ws, valid: valid, raw: raw}, nil
}

// runInvoke runs a checked tool call within its admission slot.
func (s *Server) runInvoke(w http.ResponseWriter, r *http.Request) {
	call := stateOf(r).call.(*invokeCall)
	t, ws, valid, raw := call.tool, call.ws, call.valid, call.raw
	cost := t.cost(valid)
	var final func(any) int64
	if t.research {
		final = func(v any) int64 { // a research task that failed costs nothing
			if o, ok := v.(*api.ResearchOutput); ok && o.Status == api.ResearchFailed {
				return 0
			}
			return cost
		}
	}
	out, err := s.billed(r, t.slug, cost, final, func(ctx context.Context) (any, error) {
		timeout := time.Duration(s.limits.UpstreamTimeout)
		if t.research {
			timeout = time.Duration(s.limits.ResearchWait)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var out any
		var err error
		if jobTools[t.slug] {
			out, err = s.runAsJob(ctx, ws, t, raw)
		} else {
			start := time.Now()
			out, err = callEngine(ctx, func(ctx context.Context) (any, error) { return t.run(ctx, ws.web, raw) })
			s.metrics.engineTime(t.slug, start)
		}
		if err == nil && isNil(out) {
			err = fmt.Errorf("%s: the engine returned no output", t.slug)
		}
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil {
			if t.research {
				return nil, &httpError{status: CodeTimeout, msg: api.MsgResearchWaitTimeout}
			}
			return nil, &httpError{status: CodeTimeout, msg: fmt.Sprintf("%s timed out after %s", t.slug, timeout)}
		}
		return out, err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	fillNilSlices(reflect.ValueOf(out))
	output, err := json.Marshal(out)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("encode %s output: %w", t.slug, err))
		return
	}
	s.writeData(w, r, api.InvokeResult{Service: api.SearchService, Tool: t.slug, Output: output})
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

func (s *Server) handleVoices(w http.ResponseWriter, r *http.Request) {
	p, err := stateOf(r).workspace.provider(r.PathValue("provider"), s.known)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(s.limits.UpstreamTimeout))
	defer cancel()
	start := time.Now()
	voices, err := callEngine(ctx, p.Voices)
	s.metrics.engineTime("voices", start)
	if err != nil {
		s.writeError(w, r, s.upstreamErr(ctx, r, "voices", err))
		return
	}
	if voices == nil {
		voices = []api.Voice{}
	}
	s.writeData(w, r, voices)
}

// upstreamErr names the operation when the upstream timeout ended a call.
func (s *Server) upstreamErr(ctx context.Context, r *http.Request, op string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil {
		return &httpError{status: CodeTimeout, msg: fmt.Sprintf("%s timed out after %s", op, time.Duration(s.limits.UpstreamTimeout))}
	}
	return err
}

// bufferSink collects synthesized audio for the REST endpoint.
type bufferSink struct{ bytes.Buffer }

// ttsCall is a REST TTS request read and checked before its admission.
type ttsCall struct {
	req api.TTSRequest
	p   engine.VoiceProvider
}

func (s *Server) checkTTS(r *http.Request) (any, error) {
	var req api.TTSRequest
	if err := s.decodeBody(nil, r, &req); err != nil {
		return nil, err
	}
	if err := validateTTS(&req, s.limits.MaxTextChars, "; use the TTS stream for longer text"); err != nil {
		return nil, err
	}
	p, err := stateOf(r).workspace.provider(req.Provider, s.known)
	if err != nil {
		return nil, err
	}
	return &ttsCall{req: req, p: p}, nil
}

func (s *Server) runTTS(w http.ResponseWriter, r *http.Request) {
	call := stateOf(r).call.(*ttsCall)
	req, p := call.req, call.p
	out, err := s.billed(r, "tts", usage.TTSCost(req.Text), nil, func(ctx context.Context) (any, error) {
		ctx, cancel := context.WithTimeout(ctx, time.Duration(s.limits.UpstreamTimeout))
		defer cancel()
		ctx = engine.WithTurns(ctx, s.ttsTurns.Turn)
		sink := &bufferSink{}
		defer s.metrics.engineTime("tts", time.Now())
		syn, err := callEngine(ctx, func(ctx context.Context) (engine.Synthesis, error) { return p.Synthesize(ctx, req, sink) })
		if err != nil {
			return nil, s.upstreamErr(ctx, r, "tts", err)
		}
		return api.TTSResponse{
			AudioData:  base64.StdEncoding.EncodeToString(sink.Bytes()),
			Format:     syn.Format,
			SampleRate: syn.SampleRate,
			DurationMs: syn.DurationMs,
		}, nil
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeData(w, r, out)
}

// sttCall is a REST STT request read and checked before its
// admission, its audio decoded.
type sttCall struct {
	req   api.STTRequest
	audio []byte
	p     engine.VoiceProvider
}

func (s *Server) checkSTT(r *http.Request) (any, error) {
	var req api.STTRequest
	if err := s.decodeBody(nil, r, &req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Provider) == "" {
		return nil, &engine.InputError{Field: "provider", Rule: "is required"}
	}
	if req.AudioData == "" {
		return nil, &engine.InputError{Field: "audio_data", Rule: "is required (base64-encoded audio)"}
	}
	tooLarge := &httpError{status: CodeTooLarge, msg: fmt.Sprintf(
		"audio_data: decoded audio exceeds %d bytes; use the STT stream for longer audio", s.limits.MaxAudioBytes)}
	if n := base64.StdEncoding.DecodedLen(len(req.AudioData)); n > s.limits.MaxAudioBytes+3 {
		return nil, tooLarge
	}
	audio, err := decodeBase64(req.AudioData)
	if err != nil {
		return nil, &engine.InputError{Field: "audio_data", Rule: "must be base64-encoded"}
	}
	if len(audio) > s.limits.MaxAudioBytes {
		return nil, tooLarge
	}
	if req.SampleRate < 0 {
		return nil, &engine.InputError{Field: "sample_rate", Rule: "must not be negative"}
	}
	p, err := stateOf(r).workspace.provider(req.Provider, s.known)
	if err != nil {
		return nil, err
	}
	req.AudioData = ""
	return &sttCall{req: req, audio: audio, p: p}, nil
}

func (s *Server) runSTT(w http.ResponseWriter, r *http.Request) {
	call := stateOf(r).call.(*sttCall)
	req, audio, p := call.req, call.audio, call.p
	cfg := req
	cfg.AudioData = ""
	out, err := s.billed(r, "stt", 1, func(v any) int64 { return usage.STTCost(v.(*api.STTResponse).DurationMs) },
		func(ctx context.Context) (any, error) {
			ctx, cancel := context.WithTimeout(ctx, time.Duration(s.limits.UpstreamTimeout))
			defer cancel()
			ctx = engine.WithTurns(engine.WithQueueWait(ctx, time.Duration(s.limits.UpstreamTimeout)), s.sttTurns.Turn)
			res := &transcriptJoiner{}
			defer s.metrics.engineTime("stt", time.Now())
			_, err := callEngine(ctx, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, p.Recognize(ctx, cfg, bytes.NewReader(audio), res.add)
			})
			if err != nil {
				return nil, s.upstreamErr(ctx, r, "stt", err)
			}
			return res.response(), nil
		})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeData(w, r, out)
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// transcriptJoiner turns a provider's results into one STT response: the
// final results joined by spaces (the last partial when there is no final),
// their mean confidence, and the longest duration seen.
type transcriptJoiner struct {
	finals      []string
	confSum     float64
	nFinal      int
	lastPartial string
	durationMs  int
}

func (j *transcriptJoiner) add(t engine.Transcript) error {
	j.durationMs = max(j.durationMs, t.DurationMs)
	if t.Queued > 0 {
		return nil // a REST caller just waits
	}
	if t.Final {
		if txt := strings.TrimSpace(t.Text); txt != "" {
			j.finals = append(j.finals, txt)
		}
		j.confSum += t.Confidence
		j.nFinal++
		return nil
	}
	j.lastPartial = strings.TrimSpace(t.Text)
	return nil
}

func (j *transcriptJoiner) response() *api.STTResponse {
	res := &api.STTResponse{Text: strings.Join(j.finals, " "), DurationMs: j.durationMs}
	if j.nFinal > 0 {
		res.Confidence = j.confSum / float64(j.nFinal)
	} else {
		res.Text = j.lastPartial
	}
	return res
}

// callEngine runs an engine call so that the gateway answers by ctx's
// deadline even if the engine ignores ctx, and turns an engine panic into
// an error instead of a crash. An engine that overruns keeps running in the
// background until it returns; its result is dropped.
func callEngine[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	sl := limits.SlotOf(ctx)
	if sl != nil {
		sl.Hold() // the call keeps its admission slot until the engine returns
	}
	go func() {
		if sl != nil {
			defer sl.Release()
		}
		defer func() {
			if p := recover(); p != nil {
				var zero T
				ch <- result{zero, fmt.Errorf("engine panic: %v", p)}
			}
		}()
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// fillNilSlices makes the nil slices of an engine's output that the wire
// format always carries (no omitempty) empty, so that clients see
// "results": [] and never null.
func fillNilSlices(v reflect.Value) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if !sf.IsExported() || tag == "-" {
				continue
			}
			f := v.Field(i)
			if f.Kind() == reflect.Slice && f.IsNil() && !strings.Contains(tag, ",omitempty") && f.CanSet() {
				f.Set(reflect.MakeSlice(f.Type(), 0, 0))
				continue
			}
			fillNilSlices(f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			fillNilSlices(v.Index(i))
		}
	}
}
