package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"hark/api"
	"hark/gateway/engine"
)

// openAI is any OpenAI-compatible speech server: POST /audio/speech
// (OpenAI, Kokoro-FastAPI, openedai-speech, LocalAI), POST
// /audio/transcriptions (OpenAI, whisper.cpp's server, faster-whisper-
// server) and, where the server has one, GET /audio/voices
// (Kokoro-FastAPI). Its URL is the base the paths follow, such as
// https://api.openai.com/v1 or http://gpu-box:8880/v1.
type openAI struct{}

const (
	openAIDefaultModel    = "tts-1"
	openAIDefaultSTTModel = "whisper-1"
	// openAIRate is the rate of the raw samples (response_format pcm)
	// and of the mp3 the speech endpoint makes.
	openAIRate = 24000
)

// openAIVoices are OpenAI's own voices, offered for api.openai.com,
// which has no voice list to ask.
var openAIVoices = []string{"alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"}

func (openAI) name() string       { return "OpenAI" }
func (openAI) defaultURL() string { return "https://api.openai.com/v1" }
func (openAI) authorize(h http.Header, key string) {
	h.Set("Authorization", "Bearer "+key)
}
func (openAI) speedRange() (int, int) { return -50, 100 } // speed 0.5..2 of the API's 0.25..4
func (openAI) defaultRate() int       { return openAIRate }
func (openAI) maxChunk() int          { return 4000 } // the API takes 4096 characters
func (openAI) mp3At(rate int) (int, bool) {
	if rate == 0 || rate == openAIRate {
		return openAIRate, true
	}
	return 0, false
}

func (openAI) extraKeys() []extraKey {
	return []extraKey{
		{"model", stringKey(200)},
		{"instructions", stringKey(4096)},
	}
}

func stringKey(maxRunes int) func(string, any) error {
	return func(field string, v any) error {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > maxRunes {
			return &engine.InputError{Field: field, Rule: fmt.Sprintf("must be a string of 1 to %d characters", maxRunes)}
		}
		return nil
	}
}

func unitKey(field string, v any) error {
	f, ok := v.(float64)
	if !ok || f < 0 || f > 1 {
		return &engine.InputError{Field: field, Rule: "must be a number in 0..1"}
	}
	return nil
}

func (o openAI) listVoices(ctx context.Context, p *Provider) ([]api.Voice, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.URL+"/audio/voices", nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.do(req)
	var ve *engine.VendorError
	switch {
	case err == nil:
		defer resp.Body.Close()
		var body struct {
			Voices []json.RawMessage `json:"voices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return nil, &engine.VendorError{Vendor: o.name(), Detail: "unreadable voice list: " + p.scrub(err.Error())}
		}
		out := make([]api.Voice, 0, len(body.Voices))
		for _, raw := range body.Voices {
			var code string
			if json.Unmarshal(raw, &code) != nil {
				var obj struct{ ID, VoiceID, Name string }
				json.Unmarshal(raw, &obj)
				code = firstOf(obj.ID, obj.VoiceID, obj.Name)
			}
			if code != "" {
				out = append(out, voiceItem(code, ""))
			}
		}
		return out, nil
	case asVendor(err, &ve) && (ve.Status == http.StatusNotFound || ve.Status == http.StatusMethodNotAllowed || ve.Status == http.StatusNotImplemented):
		// No voice list here: the configured voices, or OpenAI's own.
		if len(p.cfg.Voices) > 0 {
			return p.configuredVoices(), nil
		}
		if strings.Contains(p.cfg.URL, "api.openai.com") {
			out := make([]api.Voice, len(openAIVoices))
			for i, c := range openAIVoices {
				out[i] = voiceItem(c, "en")
			}
			return out, nil
		}
		return nil, &engine.VendorError{Vendor: o.name(), Detail: "the server has no voice list (GET /audio/voices); list its voices in gateway.toml (voices = [...])"}
	default:
		return nil, err
	}
}

func (o openAI) speech(ctx context.Context, p *Provider, plan *ttsPlan, text string, asMP3 bool, rate int) (*http.Request, int, error) {
	body := map[string]any{
		"model": firstOf(p.cfg.Model, openAIDefaultModel), "input": text, "voice": plan.voice,
		"response_format": "pcm",
	}
	if asMP3 {
		body["response_format"] = "mp3"
	}
	if plan.speed != 1 {
		body["speed"] = plan.speed
	}
	for k, v := range plan.extra {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.URL+"/audio/speech", bytes.NewReader(b))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, openAIRate, nil
}

func (o openAI) transcription(ctx context.Context, p *Provider, audio []byte, filename, language string) (*http.Request, error) {
	fields := [][2]string{{"model", firstOf(p.cfg.STTModel, openAIDefaultSTTModel)}, {"response_format", "json"}}
	if language != "" {
		fields = append(fields, [2]string{"language", language})
	}
	return audioForm(ctx, p.cfg.URL+"/audio/transcriptions", fields, filename, audio)
}

func (openAI) transcript(body []byte) (string, float64, error) { return textField(body) }

// failure reads OpenAI's {"error": {"message", "type", "code"}} and
// FastAPI's {"detail": ...} (Kokoro-FastAPI, faster-whisper-server).
func (openAI) failure(body []byte) (code, msg string) {
	var r struct {
		Error *struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &r) != nil {
		return "", strings.TrimSpace(string(body))
	}
	if r.Error != nil {
		var c string
		json.Unmarshal(r.Error.Code, &c)
		return firstOf(c, r.Error.Type), r.Error.Message
	}
	return detailOf(r.Detail)
}

// detailOf reads FastAPI's detail: a string, an object with a status or
// error code and a message, or a list of validation errors.
func detailOf(raw json.RawMessage) (code, msg string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "", s
	}
	var obj struct {
		Status  string `json:"status"`
		Code    string `json:"code"`
		Error   string `json:"error"`
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && (obj.Message != "" || obj.Status != "") {
		return firstOf(obj.Status, obj.Code, obj.Error, obj.Type), obj.Message
	}
	var list []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return "", list[0].Msg
	}
	return "", strings.TrimSpace(string(raw))
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// voiceItem is a voice of a code. Kokoro's codes say their language and
// gender ("af_bella": American English, female); others are named as
// they are, in language lang.
func voiceItem(code, lang string) api.Voice {
	v := api.Voice{Name: code, Value: code, Language: lang}
	if len(code) > 3 && code[2] == '_' {
		langs := map[byte]string{'a': "en-us", 'b': "en-gb", 'e': "es", 'f': "fr", 'h': "hi", 'i': "it", 'j': "ja", 'p': "pt-br", 'z': "zh"}
		genders := map[byte]string{'f': "female", 'm': "male"}
		if l, ok := langs[code[0]]; ok {
			if g, ok := genders[code[1]]; ok {
				v.Language, v.Gender = l, g
				name := code[3:]
				v.Name = strings.ToUpper(name[:1]) + name[1:]
			}
		}
	}
	return v
}
