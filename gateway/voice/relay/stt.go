package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"

	"hark/api"
	"hark/audio/wav"
	"hark/gateway/engine"
)

// Recognition: the vendors take a whole file, so the audio is read to its
// end (a stream's too) and sent once; the one final result follows.

// Recognize reads r to its end, sends it to the vendor and emits the
// vendor's text as one final result.
func (p *Provider) Recognize(ctx context.Context, cfg api.STTRequest, r io.Reader, emit func(engine.Transcript) error) error {
	lang, err := sttLanguage(cfg.Language)
	if err != nil {
		return err
	}
	for k := range cfg.Extra {
		return &engine.InputError{Field: "extra." + k, Rule: fmt.Sprintf("unknown key; %s recognition takes no extra keys", p.vendor.name())}
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(p.cfg.MaxAudioBytes)+1))
	if err != nil {
		return err
	}
	if len(data) > p.cfg.MaxAudioBytes {
		return &engine.InputError{Field: "audio_data", Rule: fmt.Sprintf("more than %d bytes of audio, %s's limit for one recognition", p.cfg.MaxAudioBytes, p.vendor.name())}
	}
	file, name, ms, err := sttFile(data, cfg.SampleRate)
	if err != nil {
		return err
	}
	req, err := p.vendor.transcription(ctx, p, file, name, lang)
	if err != nil {
		return err
	}
	resp, err := p.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return p.broken(ctx, err, 0)
	}
	text, conf, err := p.vendor.transcript(body)
	if err != nil {
		return &engine.VendorError{Vendor: p.vendor.name(), Detail: "unreadable transcription: " + p.scrub(err.Error())}
	}
	return emit(engine.Transcript{Text: strings.TrimSpace(text), Confidence: conf, Final: true, DurationMs: ms})
}

var languagePattern = regexp.MustCompile(`^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$`)

// sttLanguage is the language as the vendors take it: its ISO 639 code
// alone ("en-us" → "en").
func sttLanguage(l string) (string, error) {
	if l == "" {
		return "", nil
	}
	if !languagePattern.MatchString(l) {
		return "", &engine.InputError{Field: "language", Rule: "must be a language code such as en or en-us"}
	}
	code, _, _ := strings.Cut(strings.ReplaceAll(l, "_", "-"), "-")
	return strings.ToLower(code), nil
}

// sttFile is the audio as a file the vendors read: wav, mp3, Ogg and
// FLAC as they came, raw pcm (s16le mono at sampleRate) in a WAV; its
// name's extension says which, and ms is its duration where the header
// tells it (0 otherwise).
func sttFile(data []byte, sampleRate int) (file []byte, name string, ms int, err error) {
	switch {
	case len(data) == 0:
		return nil, "", 0, &engine.InputError{Field: "audio_data", Rule: "no audio received"}
	case bytes.HasPrefix(data, []byte("RIFF")):
		f, herr := wav.ReadHeader(bytes.NewReader(data))
		if herr != nil {
			return nil, "", 0, &engine.InputError{Field: "audio_data", Rule: "a WAV header that does not read: " + herr.Error()}
		}
		if f.Rate > 0 && f.FrameBytes() > 0 {
			n := len(data) - 44
			if f.SizeKnown() {
				n = min(n, int(f.DataBytes))
			}
			ms = int(int64(max(n, 0)/f.FrameBytes()) * 1000 / int64(f.Rate))
		}
		return data, "audio.wav", ms, nil
	case bytes.HasPrefix(data, []byte("OggS")):
		return data, "audio.ogg", 0, nil
	case bytes.HasPrefix(data, []byte("fLaC")):
		return data, "audio.flac", 0, nil
	}
	if n, _, _ := mp3Header(data); n > 0 || bytes.HasPrefix(data, []byte("ID3")) {
		var m mp3Frames
		m.write(data)
		return data, "audio.mp3", m.ms(), nil
	}
	if sampleRate <= 0 {
		return nil, "", 0, &engine.InputError{Field: "audio_data", Rule: "format not recognised: wav, mp3, Ogg and FLAC are detected from their headers; raw pcm (s16le mono) needs sample_rate"}
	}
	if sampleRate < wav.MinRate || sampleRate > wav.MaxRate {
		return nil, "", 0, &engine.InputError{Field: "sample_rate", Rule: fmt.Sprintf("%d Hz is outside %d..%d", sampleRate, wav.MinRate, wav.MaxRate)}
	}
	n := len(data) &^ 1
	file = append(wav.Header(sampleRate, uint32(n)), data[:n]...)
	return file, "audio.wav", int(int64(n/2) * 1000 / int64(sampleRate)), nil
}

var errNoText = errors.New("no text field")

// audioForm is a POST of a multipart form: fields in order, then the
// audio as the file part, the form both vendors' transcription takes.
func audioForm(ctx context.Context, url string, fields [][2]string, filename string, audio []byte) (*http.Request, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	fw, _ := mw.CreateFormFile("file", filename)
	fw.Write(audio)
	mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req, nil
}

// textField reads a transcription's {"text": ...}, which both vendors
// answer with.
func textField(body []byte) (string, float64, error) {
	var r struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return "", 0, err
	}
	if r.Text == nil {
		return "", 0, errNoText
	}
	return *r.Text, 0, nil
}
