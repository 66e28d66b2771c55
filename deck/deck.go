// Package deck plays demo decks: a small TOML file of lines, each spoken
// by its voice at its speed, with captions and pauses, performed in front
// of people. It reads the deck, checks it against the gateway's voices,
// fetches each line's speech once (the next while the current plays),
// plays the lines as one continuous stream through hark/audio, and
// renders the whole performance as one WAV. It talks to the gateway only
// through api and draws nothing: the TUI (ui/demo) and `hark demo` do.
package deck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"hark/api"
)

// Limits of a deck.
const (
	MaxLines     = 500
	MaxTextChars = 5000 // a line's text, as a REST TTS call takes it
	MaxPause     = 60 * time.Second
	MaxFileBytes = 1 << 20
)

// Deck is a demo deck, read and checked for shape (Parse); Check holds
// its voices and controls against the gateway.
type Deck struct {
	Title string
	// Name is the file's name without its extension, for saved files.
	Name  string
	Lines []Line
}

// Line is one line of a deck: speech (Text, in Voice at Speed, Pitch and
// Loudness, shown as Caption) or a pause (Pause, silence).
type Line struct {
	Number   int // 1-based, in the deck's order
	Text     string
	Caption  string // what the screen shows large; the text when not given
	Provider string // the voice's provider; "" is the client's configured one
	Voice    string // the provider's voice code
	Speed    int    // speech_rate
	Pitch    int
	Loudness int
	Pause    time.Duration
}

// IsPause reports whether the line is a pause.
func (l Line) IsPause() bool { return l.Text == "" }

// Request is the line's TTS request, WAV at the voice's own rate, with
// provider standing for an empty Provider.
func (l Line) Request(provider string) api.TTSRequest {
	return api.TTSRequest{Provider: l.ProviderOr(provider), Text: l.Text, VoiceCode: l.Voice, Format: api.FormatWAV,
		SpeechRate: l.Speed, Pitch: l.Pitch, Loudness: l.Loudness}
}

// ProviderOr is the line's provider, or def when it names none.
func (l Line) ProviderOr(def string) string {
	if l.Provider != "" {
		return l.Provider
	}
	if def != "" {
		return def
	}
	return api.DefaultProvider
}

// VoiceRef is the line's voice as a deck writes it: "flite:slt", or
// "openai_speech/alloy" for another provider's.
func (l Line) VoiceRef() string {
	if l.Provider == "" {
		return l.Voice
	}
	return l.Provider + "/" + l.Voice
}

// ParseVoiceRef reads a voice as decks and auditions write it: a voice
// code of the configured provider ("flite:slt", "festival:kal_diphone"),
// or provider/voice ("openai_speech/alloy"). A provider is a slug of
// lower-case letters, digits and _; voice codes hold no "/".
func ParseVoiceRef(ref string) (provider, voice string, err error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", "", errors.New("is empty")
	}
	p, v, ok := strings.Cut(ref, "/")
	if !ok {
		return "", ref, nil
	}
	if p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return "", "", fmt.Errorf("%q: a provider before / is lower-case letters, digits and _ (as openai_speech/alloy)", ref)
	}
	if v == "" || strings.Contains(v, "/") {
		return "", "", fmt.Errorf("%q: write provider/voice, with one /", ref)
	}
	return p, v, nil
}

// deckFile is the TOML as written.
type deckFile struct {
	Title    string     `toml:"title"`
	Provider string     `toml:"provider"`
	Voice    string     `toml:"voice"`
	Speed    any        `toml:"speed"`
	Pitch    any        `toml:"pitch"`
	Loudness any        `toml:"loudness"`
	Lines    []lineFile `toml:"line"`
}

type lineFile struct {
	Text     *string `toml:"text"`
	Caption  *string `toml:"caption"`
	Voice    *string `toml:"voice"`
	Speed    any     `toml:"speed"`
	Pitch    any     `toml:"pitch"`
	Loudness any     `toml:"loudness"`
	Pause    any     `toml:"pause"`
}

var (
	deckKeys = []string{"title", "provider", "voice", "speed", "pitch", "loudness", "line"}
	lineKeys = []string{"text", "caption", "voice", "speed", "pitch", "loudness", "pause"}
)

// Load reads and parses the deck at path.
func Load(path string) (*Deck, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s: over %d bytes; a deck is a small file", path, MaxFileBytes)
	}
	return Parse(path, b)
}

// Parse reads a deck from data; name (the file's path) begins every
// error, which names the line, the field and the rule it breaks.
func Parse(name string, data []byte) (*Deck, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, a...))
	}
	if !utf8.Valid(data) {
		return nil, fail("not UTF-8 text")
	}
	var df deckFile
	md, err := toml.Decode(string(data), &df)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fail("line %d of the file: %s", pe.Position.Line, pe.Message)
		}
		return nil, fail("%v", err)
	}
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && k[0] == "line" {
			return nil, fail("[[line]]: unknown key %q; a line takes %s", k[len(k)-1], strings.Join(lineKeys, ", "))
		}
		return nil, fail("unknown key %q; a deck takes %s", k.String(), strings.Join(deckKeys, ", "))
	}
	d := &Deck{Title: strings.TrimSpace(df.Title), Name: strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))}
	var controls [3]int // the deck's speed, pitch and loudness
	for i, v := range []any{df.Speed, df.Pitch, df.Loudness} {
		if controls[i], err = intOf(v, 0); err != nil {
			return nil, fail("%s: %v", controlNames[i], err)
		}
	}
	defProvider, defVoice := "", ""
	if df.Provider != "" {
		if _, _, err := ParseVoiceRef(df.Provider + "/x"); err != nil {
			return nil, fail("provider: %q is not a provider code (lower-case letters, digits and _)", df.Provider)
		}
		defProvider = df.Provider
	}
	if df.Voice != "" {
		p, v, err := ParseVoiceRef(df.Voice)
		if err != nil {
			return nil, fail("voice: %v", err)
		}
		defVoice, defProvider = v, firstOf(p, defProvider)
	}
	if len(df.Lines) == 0 {
		return nil, fail("no [[line]]: a deck needs at least one line with text")
	}
	if len(df.Lines) > MaxLines {
		return nil, fail("%d lines; at most %d", len(df.Lines), MaxLines)
	}
	spoken := 0
	for i, lf := range df.Lines {
		n := i + 1
		lfail := func(field, format string, a ...any) error {
			return fail("line %d: %s: %s", n, field, fmt.Sprintf(format, a...))
		}
		l := Line{Number: n, Provider: defProvider, Voice: defVoice, Speed: controls[0], Pitch: controls[1], Loudness: controls[2]}
		if lf.Pause != nil {
			if lf.Text != nil || lf.Caption != nil || lf.Voice != nil || lf.Speed != nil || lf.Pitch != nil || lf.Loudness != nil {
				return nil, lfail("pause", "a pause is a line of its own: give it no text, caption, voice or controls")
			}
			p, err := pauseOf(lf.Pause)
			if err != nil {
				return nil, lfail("pause", "%v", err)
			}
			d.Lines = append(d.Lines, Line{Number: n, Pause: p})
			continue
		}
		if lf.Text == nil {
			return nil, fail("line %d: give text (a line to say) or pause (seconds of silence)", n)
		}
		l.Text = strings.TrimSpace(*lf.Text)
		switch c := utf8.RuneCountInString(l.Text); {
		case c == 0:
			return nil, lfail("text", "is empty")
		case c > MaxTextChars:
			return nil, lfail("text", "%d characters; at most %d", c, MaxTextChars)
		}
		if lf.Caption != nil {
			l.Caption = strings.TrimSpace(*lf.Caption)
		}
		if l.Caption == "" {
			l.Caption = l.Text
		}
		if lf.Voice != nil {
			p, v, err := ParseVoiceRef(*lf.Voice)
			if err != nil {
				return nil, lfail("voice", "%v", err)
			}
			l.Provider, l.Voice = firstOf(p, defProvider), v
		}
		if l.Voice == "" {
			return nil, lfail("voice", "none given: set voice on the line or at the top of the deck (hark voices lists them)")
		}
		for i, c := range []struct {
			v   any
			dst *int
		}{{lf.Speed, &l.Speed}, {lf.Pitch, &l.Pitch}, {lf.Loudness, &l.Loudness}} {
			if *c.dst, err = intOf(c.v, *c.dst); err != nil {
				return nil, lfail(controlNames[i], "%v", err)
			}
		}
		d.Lines = append(d.Lines, l)
		spoken++
	}
	if spoken == 0 {
		return nil, fail("every line is a pause: a deck needs at least one line with text")
	}
	return d, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var controlNames = [3]string{"speed", "pitch", "loudness"}

// intOf reads a control: a whole number, or def when it is not given.
func intOf(v any, def int) (int, error) {
	switch n := v.(type) {
	case nil:
		return def, nil
	case int64:
		if n < -1000 || n > 1000 {
			return 0, fmt.Errorf("%d is not a control's value (the provider's range, as -50..100)", n)
		}
		return int(n), nil
	default:
		return 0, fmt.Errorf("%v is not a whole number", v)
	}
}

// pauseOf reads a pause: seconds as a number (1.5) or a duration ("1.5s",
// "800ms").
func pauseOf(v any) (time.Duration, error) {
	var d time.Duration
	switch p := v.(type) {
	case int64:
		d = time.Duration(p) * time.Second
	case float64:
		if math.IsNaN(p) || math.IsInf(p, 0) || p > MaxPause.Seconds() {
			return 0, fmt.Errorf("%v s; at most %s", p, MaxPause)
		}
		d = time.Duration(p * float64(time.Second))
	case string:
		var err error
		if d, err = time.ParseDuration(p); err != nil {
			return 0, fmt.Errorf("%q is not seconds (1.5) or a duration (\"1.5s\", \"800ms\")", p)
		}
	default:
		return 0, fmt.Errorf("%v is not seconds (1.5) or a duration (\"1.5s\", \"800ms\")", v)
	}
	if d <= 0 || d > MaxPause {
		return 0, fmt.Errorf("%s; must be more than 0 and at most %s", d, MaxPause)
	}
	return d, nil
}

// Providers are the providers the deck's lines speak with, def standing
// for lines that name none.
func (d *Deck) Providers(def string) []string {
	seen := map[string]bool{}
	for _, l := range d.Lines {
		if !l.IsPause() {
			seen[l.ProviderOr(def)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Gateway is what Check asks of the gateway: a provider's voices, and
// its TTS inputs (nil when it does not serve them).
type Gateway interface {
	Voices(ctx context.Context, provider string) ([]api.Voice, error)
	TTSInputs(ctx context.Context, provider string) (*api.TTSInputs, error)
}

// Check holds every line against the gateway: its voice must be one of
// its provider's, and speed, pitch and loudness within the bounds the
// provider serves (a gateway that serves none has the last word when the
// line is spoken). def is the provider of lines that name none. It
// returns the voices' display names by VoiceRef.
func (d *Deck) Check(ctx context.Context, gw Gateway, def string) (map[string]string, error) {
	names := map[string]string{}
	voices := map[string]map[string]api.Voice{}
	inputs := map[string]*api.TTSInputs{}
	for _, p := range d.Providers(def) {
		vs, err := gw.Voices(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("voices of %s: %w", p, err)
		}
		voices[p] = map[string]api.Voice{}
		for _, v := range vs {
			voices[p][v.Value] = v
		}
		if in, err := gw.TTSInputs(ctx, p); err == nil {
			inputs[p] = in
		}
	}
	for _, l := range d.Lines {
		if l.IsPause() {
			continue
		}
		p := l.ProviderOr(def)
		v, ok := voices[p][l.Voice]
		if !ok {
			return nil, &CheckError{l.Number, "voice", fmt.Sprintf("%q is not a voice of %s (hark voices %s lists them)", l.Voice, p, p)}
		}
		names[l.VoiceRef()] = v.Name
		in := inputs[p]
		if in == nil {
			continue
		}
		for _, c := range []struct {
			field, name string
			v           int
		}{{"speech_rate", "speed", l.Speed}, {"pitch", "pitch", l.Pitch}, {"loudness", "loudness", l.Loudness}} {
			f := in.Input(c.field)
			if f == nil {
				continue
			}
			if f.Min != nil && float64(c.v) < *f.Min || f.Max != nil && float64(c.v) > *f.Max {
				return nil, &CheckError{l.Number, c.name, fmt.Sprintf("%d is outside %s's %s", c.v, p, bounds(f))}
			}
		}
	}
	return names, nil
}

// CheckError is a line the gateway cannot speak as written: a voice its
// provider lacks, a control outside the provider's range. Any other error
// of Check is the gateway's own.
type CheckError struct {
	Line        int
	Field, Rule string
}

func (e *CheckError) Error() string { return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Rule) }

func bounds(f *api.Field) string {
	lo, hi := "", ""
	if f.Min != nil {
		lo = fmt.Sprintf("%g", *f.Min)
	}
	if f.Max != nil {
		hi = fmt.Sprintf("%g", *f.Max)
	}
	return lo + ".." + hi
}
