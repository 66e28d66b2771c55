package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
	"hark/config"
	"hark/deck"
)

// hark audition speaks one text with several voices in turn, for a demo
// or a choice: played one after another, or written as one WAV per voice
// and a manifest.

// auditionTake is one voice's reading, as the manifest records it.
type auditionTake struct {
	Voice      string  `json:"voice"`
	Provider   string  `json:"provider"`
	Name       string  `json:"name,omitempty"`
	File       string  `json:"file,omitempty"`
	FirstAudio float64 `json:"first_audio_ms"`
	Duration   float64 `json:"duration_s"`
	// RTF is the real-time factor: the time the whole take took to
	// arrive over its duration (under 1: faster than it plays).
	RTF     float64 `json:"rtf"`
	Credits int64   `json:"credits"`
	Bytes   int     `json:"bytes"`
	// Heard is what recognition (--stt-provider) made of the take, and
	// WER its word error rate against the text: the round trip.
	Heard   string   `json:"heard,omitempty"`
	WER     *float64 `json:"wer,omitempty"`
	TraceID string   `json:"trace_id,omitempty"`

	data    []byte
	elapsed time.Duration
	err     error
}

// auditionManifest is manifest.json, and what --json prints.
type auditionManifest struct {
	Text     string         `json:"text"`
	Provider string         `json:"provider"`
	Settings map[string]int `json:"settings"`
	Created  time.Time      `json:"created"`
	Voices   []auditionTake `json:"voices"`
	// Blind is the blind A/B's outcome, when one was run.
	Blind *blindResult `json:"blind,omitempty"`
}

// auditionVoice is one voice of --voices: PROVIDER/VOICE, or VOICE of
// the configured provider.
type auditionVoice struct{ provider, code string }

func (v auditionVoice) String() string { return v.provider + "/" + v.code }

// parseAuditionVoices reads --voices (each as a deck writes a voice:
// deck.ParseVoiceRef), dropping repeats.
func parseAuditionVoices(list, defaultProvider string) ([]auditionVoice, error) {
	var out []auditionVoice
	for _, item := range api.SplitList(list) {
		p, c, err := deck.ParseVoiceRef(item)
		if err != nil {
			return nil, usagef("--voices: %v", err)
		}
		v := auditionVoice{provider: cmp.Or(p, defaultProvider), code: c}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

func newAuditionCmd(a *App) *cobra.Command {
	var (
		voices                string
		rate, pitch, loudness int
		out                   string
		sttProvider           string
		blind                 bool
	)
	cmd := &cobra.Command{
		Use:   "audition --voices [PROVIDER/]VOICE,... TEXT...",
		Short: "Speak one text with several voices, from any providers, side by side; blind A/B; a sample sheet",
		Long: `audition speaks TEXT (or stdin, with - or no TEXT) with each voice of --voices,
in order, with the same --rate, --pitch and --loudness. A voice is
PROVIDER/VOICE (openai_speech/af_bella, elevenlabs/21m00Tcm4TlvDq8ikWAM) or
a voice of --provider (flite:slt); hark voices --all lists every enabled
provider's.

Played one after another (each labelled with its first-audio time and
duration; the next voice is fetched over the stream while one plays), then
a table: time to first audio, real-time factor, credits, and what
recognition (--stt-provider, vendor_speech's pocketsphinx by default) heard
of each take, with its word error rate against TEXT; --stt-provider none
skips the round trip.

--blind plays the takes as A, B, ... in a shuffled order, asks which you
preferred, then reveals the names; the tally of every blind pick is kept
in the data directory and shown.

-o DIR writes a sample sheet instead of playing: DIR/NN-<voice>.wav,
DIR/manifest.json (text, settings, each take's figures) and DIR/sheet.md
(the same table as a markdown page linking the WAVs). --json prints the
manifest.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			text, err := a.spokenText("audition", args)
			if err != nil {
				return err
			}
			text = strings.TrimSpace(text)
			vs, err := parseAuditionVoices(voices, a.cfg.Provider)
			if err != nil {
				return err
			}
			if len(vs) == 0 {
				return usagef("audition: --voices must name at least one voice (hark voices lists them)")
			}
			if blind && (out != "" || a.jsonOut) {
				return usagef("--blind: a blind A/B is listened to; it cannot be written with -o or --json")
			}
			if blind && len(vs) < 2 {
				return usagef("--blind: needs at least two voices to choose between")
			}
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			names := map[auditionVoice]string{}
			lists := map[string][]api.Voice{}
			for _, v := range vs {
				list, ok := lists[v.provider]
				if !ok {
					if list, err = cl.Voices(ctx, v.provider); err != nil {
						return err
					}
					lists[v.provider] = list
				}
				i := slices.IndexFunc(list, func(x api.Voice) bool { return x.Value == v.code })
				if i < 0 {
					return usagef("--voices: %q is not a voice of %s (hark voices --provider %s lists them)", v.code, v.provider, v.provider)
				}
				names[v] = list[i].Name
			}
			if out != "" {
				// The -o rule (cli/output.go): the folder named is made,
				// alone, in a parent that exists.
				if err := checkOutputParent(out); err != nil {
					return err
				}
				if _, err := os.Stat(out); err == nil {
					if entries, _ := os.ReadDir(out); len(entries) > 0 {
						return usagef("-o %s: the folder exists and is not empty; choose a new one", out)
					}
				}
				if err := os.Mkdir(out, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
					return usagef("-o %s: %v", out, err)
				}
			}
			m := auditionManifest{Text: text, Provider: a.cfg.Provider, Created: time.Now().UTC(),
				Settings: map[string]int{"speech_rate": rate, "pitch": pitch, "loudness": loudness}}
			base := api.TTSRequest{Text: text, Format: api.FormatWAV, SpeechRate: rate, Pitch: pitch, Loudness: loudness}
			order := vs
			if blind {
				order = slices.Clone(vs)
				rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}

			if out != "" || a.jsonOut {
				// Written, not played: each take whole, with its true
				// sizes.
				for i, v := range vs {
					req := base
					req.Provider, req.VoiceCode = v.provider, v.code
					t := fetchTake(ctx, cl, req, nil)
					t.Name = names[v]
					if t.err != nil {
						return fmt.Errorf("audition %s: %w", v, t.err)
					}
					if out != "" {
						name := v.code
						if v.provider != a.cfg.Provider {
							name = v.provider + "-" + v.code
						}
						t.File = fmt.Sprintf("%02d-%s.wav", i+1, fileSafe(name))
						if err := os.WriteFile(filepath.Join(out, t.File), t.data, 0o644); err != nil {
							return fmt.Errorf("-o %s: %w", out, err)
						}
					}
					m.Voices = append(m.Voices, t)
				}
			} else if err := a.playAudition(ctx, cl, base, order, names, blind, &m); err != nil {
				return err
			}
			if sttProvider != "none" {
				a.hearTakes(ctx, cl, sttProvider, text, m.Voices)
			}
			if blind {
				res, err := a.blindPick(order, m.Voices)
				if err != nil {
					return err
				}
				m.Blind = res
			}
			if out != "" {
				b, _ := json.MarshalIndent(m, "", "  ")
				if err := os.WriteFile(filepath.Join(out, "manifest.json"), b, 0o644); err != nil {
					return fmt.Errorf("-o %s: %w", out, err)
				}
				if err := os.WriteFile(filepath.Join(out, "sheet.md"), []byte(sampleSheet(m)), 0o644); err != nil {
					return fmt.Errorf("-o %s: %w", out, err)
				}
				if !a.jsonOut {
					fmt.Fprintf(a.stdout, "wrote %s, manifest.json and sheet.md to %s\n", plural(len(m.Voices), "take"), out)
				}
			}
			if a.jsonOut {
				return writeJSON(a.stdout, m)
			}
			if !blind || m.Blind != nil {
				fmt.Fprint(a.stdout, auditionTable(m.Voices))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&voices, "voices", "", "voices, comma-separated, in the order to play them: PROVIDER/VOICE, or VOICE of --provider")
	f.IntVar(&rate, "rate", 0, "speech_rate for every voice (provider's range)")
	f.IntVar(&pitch, "pitch", 0, "pitch for every voice (provider's range)")
	f.IntVar(&loudness, "loudness", 0, "loudness for every voice (provider's range)")
	f.StringVarP(&out, "output", "o", "", "write a sample sheet (one WAV per voice, manifest.json, sheet.md) to this new folder instead of playing")
	f.StringVar(&sttProvider, "stt-provider", api.DefaultProvider, "provider that hears each take back for the round trip; none skips it")
	f.BoolVar(&blind, "blind", false, "blind A/B: names hidden while the takes play, you pick, then they are revealed; the tally is kept")
	cmd.RegisterFlagCompletionFunc("voices", a.completeVoices)
	return cmd
}

// playAudition plays the takes in turn as one continuous stream: each
// take plays as its frames arrive, the next is fetched while one plays,
// and no gap opens between voices. Each take's line is printed as it
// starts to play, its duration added once it has all arrived.
func (a *App) playAudition(ctx context.Context, cl *api.Client, base api.TTSRequest, vs []auditionVoice, names map[auditionVoice]string, blind bool, m *auditionManifest) error {
	player, err := audio.Open(audio.Options{Sink: a.cfg.AudioSink, Dir: a.cfg.PlayedDir(), Keep: config.PlayedKeep, Log: a.logWriter()})
	if err != nil {
		return err
	}
	if player.Kind() == audio.SinkNull {
		// Timings printed as if played, for takes no one hears.
		return targetError{fmt.Errorf("audition: %w\nhint: set audio_sink to auto, device or file (hark config shows it), or write the takes to a folder with -o DIR", audio.ErrOff)}
	}
	var mu sync.Mutex
	takes := make([]auditionTake, len(vs))
	for i, v := range vs {
		takes[i].Voice, takes[i].Provider, takes[i].Name = v.code, v.provider, names[v]
	}
	arrived := make([]bool, len(vs))
	open := -1 // the take whose line waits for its duration
	line := func(i int) string {
		t := takes[i]
		if blind {
			return fmt.Sprintf("%d/%d %s · first audio %.0f ms", i+1, len(vs), blindLabel(i), t.FirstAudio)
		}
		who := t.Voice
		if t.Provider != a.cfg.Provider {
			who = t.Provider + "/" + t.Voice
		}
		return fmt.Sprintf("%d/%d %s  %s · first audio %.0f ms", i+1, len(vs), who, t.Name, t.FirstAudio)
	}
	q := player.Sequence(streamRate)
	err = q.Run(ctx, audio.Turns{
		Count: len(vs), Format: api.FormatWAV,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			req := base
			req.Provider, req.VoiceCode = vs[i].provider, vs[i].code
			t := fetchTake(ctx, cl, req, &lockedWriter{w: w, mu: &mu, first: &takes[i].FirstAudio, start: time.Now()})
			mu.Lock()
			first := takes[i].FirstAudio
			t.Name = names[vs[i]]
			if first > 0 {
				t.FirstAudio = first // as the line printed it
			}
			takes[i] = t
			mu.Unlock()
			return t.err
		},
		Arrived: func(i int, length time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			arrived[i] = true
			if open == i {
				fmt.Fprintf(a.stdout, " · %.2f s\n", takes[i].Duration)
				open = -1
			}
		},
		Playing: func(i int) {
			mu.Lock()
			defer mu.Unlock()
			if arrived[i] {
				fmt.Fprintf(a.stdout, "%s · %.2f s\n", line(i), takes[i].Duration)
				return
			}
			fmt.Fprint(a.stdout, line(i))
			open = i
		},
	})
	mu.Lock()
	if open >= 0 {
		fmt.Fprintln(a.stdout)
	}
	for i := range takes {
		if arrived[i] && takes[i].err == nil {
			m.Voices = append(m.Voices, takes[i])
		}
	}
	mu.Unlock()
	var pe *audio.PartError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("audition %s: %w", vs[pe.Part], pe.Err)
	case err != nil:
		return fmt.Errorf("audition: playback: %w", err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if player.Kind() == audio.SinkFile && q.SavedTo() != "" {
		fmt.Fprintf(a.stderr, "hark: %s The audition was saved to %s\n", player.Silence(), q.SavedTo())
	}
	return nil
}

// lockedWriter passes a take's frames on to the player, noting under mu
// when the first arrived (milliseconds from start).
type lockedWriter struct {
	w     io.Writer
	mu    *sync.Mutex
	first *float64
	start time.Time
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	if *l.first == 0 && len(b) > 0 {
		*l.first = float64(time.Since(l.start).Microseconds()) / 1000
	}
	l.mu.Unlock()
	return l.w.Write(b)
}

// fetchTake streams one voice's reading, passing its frames to play (when
// not nil) as they arrive and keeping them whole, timing its first audio.
// The kept WAV gets its true sizes (the stream's header has placeholders).
func fetchTake(ctx context.Context, cl *api.Client, req api.TTSRequest, play io.Writer) auditionTake {
	t := auditionTake{Voice: req.VoiceCode, Provider: req.Provider}
	start := time.Now()
	s, err := cl.TTSStream(ctx, req)
	if err != nil {
		t.err = err
		return t
	}
	defer s.Close()
	t.TraceID = s.TraceID()
	var buf bytes.Buffer
	for {
		chunk, err := s.Next()
		if len(chunk) > 0 && buf.Len() == 0 {
			t.FirstAudio = float64(time.Since(start).Microseconds()) / 1000
		}
		buf.Write(chunk)
		if len(chunk) > 0 && play != nil {
			if _, werr := play.Write(chunk); werr != nil {
				t.err = werr
				return t
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.err = err
			return t
		}
	}
	t.data, t.Bytes = buf.Bytes(), buf.Len()
	if t.Bytes == 0 {
		t.err = errors.New("the stream brought no audio")
		return t
	}
	if err := wav.FixBytes(t.data); err != nil {
		t.err = fmt.Errorf("the take is not a WAV: %w", err)
		return t
	}
	t.Duration = wavSeconds(t.data)
	t.elapsed = time.Since(start)
	if t.Duration > 0 {
		t.RTF = math.Round(t.elapsed.Seconds()/t.Duration*1000) / 1000
	}
	t.Credits = s.Credits()
	return t
}

// wavSeconds is how long a WAV plays (0 when it is not one).
func wavSeconds(data []byte) float64 {
	r := bytes.NewReader(data)
	f, err := wav.ReadHeader(r)
	if err != nil || f.Rate == 0 || f.FrameBytes() == 0 {
		return 0
	}
	n := r.Len()
	if f.SizeKnown() {
		n = min(n, int(f.DataBytes))
	}
	return float64(n/f.FrameBytes()) / float64(f.Rate)
}

// streamRate is the rate the audition's takes are played at, together.
const streamRate = 48000

// fileSafe makes a voice code a file name part ("flite:slt" → "flite_slt").
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}
