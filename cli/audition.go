package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
	"hark/config"
)

// hark audition speaks one text with several voices in turn, for a demo
// or a choice: played one after another, or written as one WAV per voice
// and a manifest.

// auditionTake is one voice's reading, as the manifest records it.
type auditionTake struct {
	Voice      string  `json:"voice"`
	Name       string  `json:"name,omitempty"`
	File       string  `json:"file,omitempty"`
	FirstAudio float64 `json:"first_audio_ms"`
	Duration   float64 `json:"duration_s"`
	Bytes      int     `json:"bytes"`
	TraceID    string  `json:"trace_id,omitempty"`

	data []byte
	err  error
}

// auditionManifest is manifest.json, and what --json prints.
type auditionManifest struct {
	Text     string         `json:"text"`
	Provider string         `json:"provider"`
	Settings map[string]int `json:"settings"`
	Created  time.Time      `json:"created"`
	Voices   []auditionTake `json:"voices"`
}

func newAuditionCmd(a *App) *cobra.Command {
	var (
		voices                string
		rate, pitch, loudness int
		out                   string
	)
	cmd := &cobra.Command{
		Use:   "audition --voices CODE,CODE,... TEXT...",
		Short: "Speak one text with several voices in turn, or save one file per voice",
		Long: `audition speaks TEXT (or stdin, with - or no TEXT) with each voice of --voices,
in order, with the same --rate, --pitch and --loudness: played one after
another (each labelled with its first-audio time and duration; the next
voice is fetched over the stream while one plays), or, with -o DIR, written
as DIR/NN-<voice>.wav with DIR/manifest.json (text, settings, and each
voice's file, first-audio time and duration). --json prints the manifest.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			text, err := a.spokenText("audition", args)
			if err != nil {
				return err
			}
			text = strings.TrimSpace(text)
			var codes []string
			for _, c := range api.SplitList(voices) {
				if !containsStr(codes, c) {
					codes = append(codes, c)
				}
			}
			if len(codes) == 0 {
				return usagef("audition: --voices must name at least one voice (hark voices lists them)")
			}
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			list, err := cl.Voices(ctx, a.cfg.Provider)
			if err != nil {
				return err
			}
			names := map[string]string{}
			for _, v := range list {
				names[v.Value] = v.Name
			}
			for _, c := range codes {
				if _, ok := names[c]; !ok {
					return usagef("--voices: %q is not a voice of %s (hark voices lists them)", c, a.cfg.Provider)
				}
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
			base := api.TTSRequest{Provider: a.cfg.Provider, Text: text, Format: api.FormatWAV, SpeechRate: rate, Pitch: pitch, Loudness: loudness}

			if out != "" || a.jsonOut {
				// Written, not played: each take whole, with its true
				// sizes.
				for i, c := range codes {
					req := base
					req.VoiceCode = c
					t := fetchTake(ctx, cl, req, nil)
					t.Name = names[c]
					if t.err != nil {
						return fmt.Errorf("audition %s: %w", c, t.err)
					}
					if out != "" {
						t.File = fmt.Sprintf("%02d-%s.wav", i+1, fileSafe(c))
						if err := os.WriteFile(filepath.Join(out, t.File), t.data, 0o644); err != nil {
							return fmt.Errorf("-o %s: %w", out, err)
						}
					}
					m.Voices = append(m.Voices, t)
				}
			} else if err := a.playAudition(ctx, cl, base, codes, names, &m); err != nil {
				return err
			}
			if out != "" {
				b, _ := json.MarshalIndent(m, "", "  ")
				if err := os.WriteFile(filepath.Join(out, "manifest.json"), b, 0o644); err != nil {
					return fmt.Errorf("-o %s: %w", out, err)
				}
				if !a.jsonOut {
					fmt.Fprintf(a.stdout, "wrote %s and manifest.json to %s\n", plural(len(m.Voices), "take"), out)
				}
			}
			if a.jsonOut {
				return writeJSON(a.stdout, m)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&voices, "voices", "", "voice codes, comma-separated, in the order to play them")
	f.IntVar(&rate, "rate", 0, "speech_rate for every voice (provider's range)")
	f.IntVar(&pitch, "pitch", 0, "pitch for every voice (provider's range)")
	f.IntVar(&loudness, "loudness", 0, "loudness for every voice (provider's range)")
	f.StringVarP(&out, "output", "o", "", "write one WAV per voice and manifest.json to this new folder instead of playing")
	cmd.RegisterFlagCompletionFunc("voices", a.completeVoices)
	return cmd
}

// playAudition plays the takes in turn as one continuous stream: each
// take plays as its frames arrive, the next is fetched while one plays,
// and no gap opens between voices. Each take's line is printed as it
// starts to play, its duration added once it has all arrived.
func (a *App) playAudition(ctx context.Context, cl *api.Client, base api.TTSRequest, codes []string, names map[string]string, m *auditionManifest) error {
	player, err := audio.Open(audio.Options{Sink: a.cfg.AudioSink, Dir: a.cfg.PlayedDir(), Keep: config.PlayedKeep, Log: a.logWriter()})
	if err != nil {
		return err
	}
	if player.Kind() == audio.SinkNull {
		// Timings printed as if played, for takes no one hears.
		return targetError{fmt.Errorf("audition: %w\nhint: set audio_sink to auto, device or file (hark config shows it), or write the takes to a folder with -o DIR", audio.ErrOff)}
	}
	var mu sync.Mutex
	takes := make([]auditionTake, len(codes))
	for i, c := range codes {
		takes[i].Voice, takes[i].Name = c, names[c]
	}
	arrived := make([]bool, len(codes))
	open := -1 // the take whose line waits for its duration
	line := func(i int) string {
		t := takes[i]
		return fmt.Sprintf("%d/%d %s  %s · first audio %.0f ms", i+1, len(codes), t.Voice, t.Name, t.FirstAudio)
	}
	q := player.Sequence(streamRate)
	err = q.Run(ctx, audio.Turns{
		Count: len(codes), Format: api.FormatWAV,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			req := base
			req.VoiceCode = codes[i]
			t := fetchTake(ctx, cl, req, &lockedWriter{w: w, mu: &mu, first: &takes[i].FirstAudio, start: time.Now()})
			mu.Lock()
			first := takes[i].FirstAudio
			t.Name = names[codes[i]]
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
		return fmt.Errorf("audition %s: %w", codes[pe.Part], pe.Err)
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
	t := auditionTake{Voice: req.VoiceCode}
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

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

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
