package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/audio"
	"hark/audio/prose"
	"hark/audio/wav"
	"hark/config"
	"hark/library"
)

// hark read speaks a document aloud, sentence by sentence: a markdown or
// text file, stdin, or an item of the library.

func newReadCmd(a *App) *cobra.Command {
	var out string
	var rate int
	cmd := &cobra.Command{
		Use:   "read FILE|ID|-",
		Short: "Read a document aloud, sentence by sentence (a file, stdin, or a library item)",
		Long: `read speaks a markdown or text document with the configured voice (--voice):
FILE, - for stdin, or ID, an item of the library (hark library list). The
markdown is spoken as prose: no markup, links by their text, and code
blocks, tables, images and bare URLs announced rather than spelled out.
Each sentence is printed as it is spoken; sentences are fetched over the
TTS stream one ahead of the voice. -o FILE writes the whole reading as one
WAV instead of playing it.`,
		Args: exactArgs(1, "FILE, ID or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			md, err := a.readSource(cmd, args[0])
			if err != nil {
				return err
			}
			sentences := prose.Sentences(md)
			if len(sentences) == 0 {
				return usagef("read %s: there is nothing to read aloud", args[0])
			}
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			voice := a.cfg.Voice
			if voice == "" {
				if voice, err = firstVoice(ctx, cl, a.cfg.Provider); err != nil {
					return err
				}
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			// One sentence is fetched ahead of the one being spoken.
			takes := make(chan auditionTake, 1)
			go func() {
				defer close(takes)
				for _, s := range sentences {
					t := fetchTake(ctx, cl, api.TTSRequest{Provider: a.cfg.Provider, Text: s.Text, VoiceCode: voice, Format: api.FormatWAV, SpeechRate: rate})
					select {
					case takes <- t:
					case <-ctx.Done():
						return
					}
					if t.err != nil {
						return
					}
				}
			}()
			var player *audio.Output
			if out == "" {
				if player, err = audio.Open(audio.Options{Sink: a.cfg.AudioSink, Dir: a.cfg.PlayedDir(), Keep: config.PlayedKeep, Log: a.logWriter()}); err != nil {
					return err
				}
			}
			var pcm []byte
			rateHz, i := 0, 0
			for t := range takes {
				s := sentences[i]
				i++
				if t.err != nil {
					return fmt.Errorf("read: sentence %d (%q): %w", i, s.Text, t.err)
				}
				fmt.Fprintln(a.stdout, s.Text)
				if player != nil {
					if err := playTake(ctx, player, t.data); err != nil {
						return fmt.Errorf("read: playback: %w", err)
					}
					continue
				}
				r := bytes.NewReader(t.data)
				f, err := wav.ReadHeader(r)
				if err != nil {
					return fmt.Errorf("read: sentence %d: %w", i, err)
				}
				if rateHz != 0 && f.Rate != rateHz {
					return fmt.Errorf("read: sentence %d came at %d Hz, the others at %d Hz", i, f.Rate, rateHz)
				}
				rateHz = f.Rate
				samples, _ := io.ReadAll(f.Samples(r))
				mono, _ := wav.AppendMono(nil, samples, f)
				pcm = wav.AppendS16(pcm, mono)
			}
			if out != "" {
				data := append(wav.Header(rateHz, uint32(len(pcm))), pcm...)
				if err := os.WriteFile(out, data, 0o644); err != nil {
					return usagef("-o %s: %v", out, err)
				}
				fmt.Fprintf(a.stderr, "hark: wrote %s (%s, %.1f s) to %s\n", plural(len(sentences), "sentence"), voice, float64(len(pcm)/2)/float64(max(1, rateHz)), out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the reading as one WAV file instead of playing it")
	cmd.Flags().IntVar(&rate, "rate", 0, "speech_rate (provider's range)")
	return cmd
}

// readSource is the document to read: stdin, a file, or a library item.
func (a *App) readSource(cmd *cobra.Command, arg string) (string, error) {
	if arg == "-" {
		b, err := readAtMost(a.stdin, maxTTSText, "read: text from stdin")
		return string(b), err
	}
	if _, err := os.Stat(arg); err == nil {
		b, err := readFileAtMost(arg, maxTTSText, "read")
		return string(b), err
	}
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return "", usagef("read %s: no such file, and not a library ID", arg)
	}
	s, err := a.openLibrary()
	if err != nil {
		return "", err
	}
	it, err := s.Get(cmd.Context(), id)
	if errors.Is(err, library.ErrNotFound) {
		return "", usagef("read: no file %s and no library item %d", arg, id)
	}
	if err != nil {
		return "", libraryError{err}
	}
	return strings.TrimSpace(library.Markdown(it)), nil
}
