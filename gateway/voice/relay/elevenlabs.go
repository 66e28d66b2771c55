package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"hark/api"
	"hark/gateway/engine"
)

// elevenLabs is ElevenLabs' API: GET /v1/voices, POST
// /v1/text-to-speech/{voice_id}/stream (audio in chunks as it is made)
// and POST /v1/speech-to-text.
type elevenLabs struct{}

const (
	elevenDefaultModel    = "eleven_multilingual_v2"
	elevenDefaultSTTModel = "scribe_v1"
	elevenRate            = 24000
)

// elevenPCMRates are the rates of its pcm_<rate> output formats.
var elevenPCMRates = []int{8000, 16000, 22050, 24000, 44100, 48000}

// elevenMP3 are its mp3 output formats by rate.
var elevenMP3 = map[int]string{22050: "mp3_22050_32", 24000: "mp3_24000_48", 44100: "mp3_44100_128"}

func (elevenLabs) name() string       { return "ElevenLabs" }
func (elevenLabs) defaultURL() string { return "https://api.elevenlabs.io" }
func (elevenLabs) authorize(h http.Header, key string) {
	h.Set("xi-api-key", key)
}
func (elevenLabs) speedRange() (int, int) { return -30, 20 } // voice_settings.speed 0.7..1.2
func (elevenLabs) defaultRate() int       { return elevenRate }
func (elevenLabs) maxChunk() int          { return 5000 }
func (elevenLabs) mp3At(rate int) (int, bool) {
	if rate == 0 {
		return 44100, true
	}
	_, ok := elevenMP3[rate]
	return rate, ok
}

func (elevenLabs) extraKeys() []extraKey {
	return []extraKey{
		{"model_id", stringKey(200)},
		{"stability", unitKey},
		{"similarity_boost", unitKey},
	}
}

func (e elevenLabs) listVoices(ctx context.Context, p *Provider) ([]api.Voice, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.URL+"/v1/voices", nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Voices []struct {
			VoiceID string            `json:"voice_id"`
			Name    string            `json:"name"`
			Labels  map[string]string `json:"labels"`
			Langs   []struct {
				Language string `json:"language"`
				Locale   string `json:"locale"`
			} `json:"verified_languages"`
		} `json:"voices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, &engine.VendorError{Vendor: e.name(), Detail: "unreadable voice list: " + p.scrub(err.Error())}
	}
	out := make([]api.Voice, 0, len(body.Voices))
	for _, v := range body.Voices {
		if v.VoiceID == "" {
			continue
		}
		lang := "en"
		switch {
		case len(v.Langs) > 0 && v.Langs[0].Locale != "":
			lang = strings.ToLower(v.Langs[0].Locale)
		case len(v.Langs) > 0 && v.Langs[0].Language != "":
			lang = strings.ToLower(v.Langs[0].Language)
		case v.Labels["language"] != "":
			lang = strings.ToLower(v.Labels["language"])
		case v.Labels["accent"] == "american":
			lang = "en-us"
		case v.Labels["accent"] == "british":
			lang = "en-gb"
		}
		out = append(out, api.Voice{Name: firstOf(v.Name, v.VoiceID), Value: v.VoiceID, Language: lang,
			Scene: v.Labels["use_case"], Gender: strings.ToLower(v.Labels["gender"])})
	}
	return out, nil
}

func (e elevenLabs) speech(ctx context.Context, p *Provider, plan *ttsPlan, text string, asMP3 bool, rate int) (*http.Request, int, error) {
	format := fmt.Sprintf("pcm_%d", elevenRate)
	pcmRate := elevenRate
	if asMP3 {
		format = elevenMP3[rate]
	} else if slices.Contains(elevenPCMRates, rate) {
		format, pcmRate = fmt.Sprintf("pcm_%d", rate), rate
	}
	body := map[string]any{"text": text, "model_id": firstOf(p.cfg.Model, elevenDefaultModel)}
	settings := map[string]any{}
	if plan.speed != 1 {
		settings["speed"] = plan.speed
	}
	for k, v := range plan.extra {
		if k == "model_id" {
			body[k] = v
		} else {
			settings[k] = v
		}
	}
	if len(settings) > 0 {
		body["voice_settings"] = settings
	}
	b, _ := json.Marshal(body)
	u := p.cfg.URL + "/v1/text-to-speech/" + url.PathEscape(plan.voice) + "/stream?output_format=" + format
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, pcmRate, nil
}

func (elevenLabs) transcription(ctx context.Context, p *Provider, audio []byte, filename, language string) (*http.Request, error) {
	fields := [][2]string{{"model_id", firstOf(p.cfg.STTModel, elevenDefaultSTTModel)}}
	if language != "" {
		fields = append(fields, [2]string{"language_code", language})
	}
	return audioForm(ctx, p.cfg.URL+"/v1/speech-to-text", fields, filename, audio)
}

func (elevenLabs) transcript(body []byte) (string, float64, error) { return textField(body) }

// failure reads {"detail": {"status": "voice_not_found", "message": ...}}
// and its other forms.
func (elevenLabs) failure(body []byte) (code, msg string) {
	var r struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &r) != nil || r.Detail == nil {
		return "", strings.TrimSpace(string(body))
	}
	return detailOf(r.Detail)
}

// asVendor is errors.As for a vendor's error.
func asVendor(err error, ve **engine.VendorError) bool { return errors.As(err, ve) }
