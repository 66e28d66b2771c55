package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
			text := strings.Join(args, " ")
			if len(args) == 0 || text == "-" {
				if !stdinIsData(a.stdin) {
					return usagef("audition: give TEXT or pipe it on stdin")
				}
				b, err := readAtMost(a.stdin, maxTTSText, "audition: text from stdin")
				if err != nil {
					return err
				}
				text = string(b)
			}
			text = strings.TrimSpace(text)
			if text == "" {
				return usagef("audition: text must not be empty")
			}
			var codes []string
			for _, c := range strings.Split(voices, ",") {
				if c = strings.TrimSpace(c); c != "" && !containsStr(codes, c) {
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
				if _, err := os.Stat(out); err == nil {
					if entries, _ := os.ReadDir(out); len(entries) > 0 {
						return usagef("-o %s: the folder exists and is not empty; choose a new one", out)
					}
				}
				if err := os.MkdirAll(out, 0o755); err != nil {
					return usagef("-o %s: %v", out, err)
				}
			}
			m := auditionManifest{Text: text, Provider: a.cfg.Provider, Created: time.Now().UTC(),
				Settings: map[string]int{"speech_rate": rate, "pitch": pitch, "loudness": loudness}}
			base := api.TTSRequest{Provider: a.cfg.Provider, Text: text, Format: api.FormatWAV, SpeechRate: rate, Pitch: pitch, Loudness: loudness}

			// Every voice is fetched in order, one ahead of playback at
			// least: the next take is on its way while one plays.
			takes := make(chan auditionTake, len(codes))
			go func() {
				defer close(takes)
				for _, c := range codes {
					req := base
					req.VoiceCode = c
					t := fetchTake(ctx, cl, req)
					t.Name = names[c]
					takes <- t
					if t.err != nil {
						return
					}
				}
			}()
			var player *audio.Output
			if out == "" && !a.jsonOut {
				player, err = audio.Open(audio.Options{Sink: a.cfg.AudioSink, Dir: a.cfg.PlayedDir(), Keep: config.PlayedKeep, Log: a.logWriter()})
				if err != nil {
					return err
				}
			}
			// Played, the takes are one continuous stream at one rate: the
			// next take is queued behind the one playing, so no gap opens
			// between voices (a new player per take left 20-45 ms).
			var stream *audio.Playback
			var queued time.Duration // audio written to the stream so far
			if player != nil {
				if stream, err = player.Play(api.FormatPCM, streamRate); err != nil {
					return err
				}
				defer stream.Stop()
			}
			i := 0
			for t := range takes {
				i++
				if t.err != nil {
					return fmt.Errorf("audition %s: %w", t.Voice, t.err)
				}
				if out != "" {
					t.File = fmt.Sprintf("%02d-%s.wav", i, fileSafe(t.Voice))
					if err := os.WriteFile(filepath.Join(out, t.File), t.data, 0o644); err != nil {
						return fmt.Errorf("-o %s: %w", out, err)
					}
				}
				m.Voices = append(m.Voices, t)
				if a.jsonOut {
					continue
				}
				if stream != nil {
					pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, t.data, 0)
					if err != nil {
						return fmt.Errorf("audition %s: %w", t.Voice, err)
					}
					pcm = audio.Resample(pcm, rate, streamRate)
					if _, err := stream.Write(pcm); err != nil {
						return fmt.Errorf("audition %s: playback: %w", t.Voice, err)
					}
					// Its line shows when it starts to play.
					if err := waitPlayed(ctx, stream, queued); err != nil {
						return fmt.Errorf("audition %s: playback: %w", t.Voice, err)
					}
					queued += time.Duration(float64(len(pcm)/2) / streamRate * float64(time.Second))
				}
				fmt.Fprintf(a.stdout, "%d/%d %s  %s · first audio %.0f ms · %.2f s\n", i, len(codes), t.Voice, t.Name, t.FirstAudio, t.Duration)
			}
			if stream != nil {
				stream.CloseWithError(nil)
				select {
				case <-stream.Done():
					if err := stream.Err(); err != nil {
						return fmt.Errorf("audition: playback: %w", err)
					}
				case <-ctx.Done():
					return ctx.Err()
				}
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
			if player != nil && player.Kind() == audio.SinkFile {
				fmt.Fprintf(a.stderr, "hark: no sound device here; the takes were saved in %s\n", a.cfg.PlayedDir())
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

// fetchTake streams one voice's reading whole, timing its first audio.
func fetchTake(ctx context.Context, cl *api.Client, req api.TTSRequest) auditionTake {
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
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.err = err
			return t
		}
	}
	t.data, t.Bytes = buf.Bytes(), buf.Len()
	t.Duration = wavSeconds(t.data)
	if t.Bytes == 0 {
		t.err = errors.New("the stream brought no audio")
	}
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

// waitPlayed waits until the stream has played at least d.
func waitPlayed(ctx context.Context, pb *audio.Playback, d time.Duration) error {
	for pb.Stats().Played < d {
		select {
		case <-pb.Done():
			return pb.Err()
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// playTake plays one WAV through the output and waits for it to end.
func playTake(ctx context.Context, out *audio.Output, data []byte) error {
	pb, err := out.Play(api.FormatWAV, 0)
	if err != nil {
		return err
	}
	if _, err := pb.Write(data); err != nil {
		return err
	}
	pb.CloseWithError(nil)
	select {
	case <-pb.Done():
		return pb.Err()
	case <-ctx.Done():
		pb.Stop()
		return ctx.Err()
	}
}

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
