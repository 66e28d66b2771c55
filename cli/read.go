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
	"hark/audio/pcm"
	"hark/audio/prose"
	"hark/audio/wav"
	"hark/config"
	"hark/library"
	"hark/ui/common"
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
TTS stream a batch per call (the first alone, then up to 1000 characters:
a call costs a credit at least), the next ahead of the voice. -o FILE writes the whole reading as one
WAV instead of playing it.`,
		Args: exactArgs(1, "FILE, ID or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if out != "" && out != "-" {
				// The -o rule (cli/output.go), before any call is made.
				if err := checkOutputParent(out); err != nil {
					return err
				}
			}
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
			voice, err := a.voice(ctx, cl)
			if err != nil {
				return err
			}
			// Asked for a batch of sentences per call, as the TUI's R
			// reads (common.ReadSentences): a call costs a credit at least.
			req := func(text string) api.TTSRequest {
				return api.TTSRequest{Provider: a.cfg.Provider, Text: text, VoiceCode: voice, Format: api.FormatWAV, SpeechRate: rate}
			}
			if out == "" {
				return a.playReading(ctx, cl, sentences, req)
			}
			var speech []byte // s16le mono, every sentence
			rateHz := 0
			err = common.SpeakBatches(ctx, sentences, req, cl, func(first, end int, data []byte) error {
				for _, s := range sentences[first:end] {
					if out == "-" {
						fmt.Fprintln(a.stderr, s.Text) // stdout holds the audio
					} else {
						fmt.Fprintln(a.stdout, s.Text)
					}
				}
				r := bytes.NewReader(data)
				f, err := wav.ReadHeader(r)
				if err != nil {
					return fmt.Errorf("read: sentence %d: %w", first+1, err)
				}
				if rateHz != 0 && f.Rate != rateHz {
					return fmt.Errorf("read: sentence %d came at %d Hz, the others at %d Hz", first+1, f.Rate, rateHz)
				}
				rateHz = f.Rate
				samples, _ := io.ReadAll(f.Samples(r))
				mono, _ := wav.AppendMono(nil, samples, f)
				speech = pcm.AppendS16(speech, mono)
				return nil
			})
			var pe *audio.PartError
			if errors.As(err, &pe) {
				return fmt.Errorf("read: sentence %d (%q): %w", pe.Part+1, sentences[pe.Part].Text, pe.Err)
			}
			if err != nil {
				return err
			}
			if out != "" {
				data := append(wav.Header(rateHz, uint32(len(speech))), speech...)
				if err := a.writeOutput(ctx, out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "hark: wrote %s (%s, %.1f s) to %s\n", plural(len(sentences), "sentence"), voice, float64(len(speech)/2)/float64(max(1, rateHz)), out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the reading as one WAV file instead of playing it, replacing FILE; - for stdout")
	cmd.Flags().IntVar(&rate, "rate", 0, "speech_rate (provider's range)")
	return cmd
}

// playReading plays the sentences in turn as one continuous stream, a
// batch of them per call, each batch as its frames arrive with the next
// two fetched while one plays, and prints each sentence as its voice
// begins. With no sound device the whole reading is one file, and stderr
// says where.
func (a *App) playReading(ctx context.Context, cl *api.Client, sentences []prose.Sentence, req func(string) api.TTSRequest) error {
	player, err := audio.Open(audio.Options{Sink: a.cfg.AudioSink, Dir: a.cfg.PlayedDir(), Keep: config.PlayedKeep, Log: a.logWriter()})
	if err != nil {
		return err
	}
	if player.Kind() == audio.SinkNull {
		return targetError{fmt.Errorf("read: %w\nhint: set audio_sink to auto, device or file (hark config shows it), or write the reading to a file with -o FILE", audio.ErrOff)}
	}
	q := player.Sequence(0)
	err = common.ReadSentences(ctx, q, sentences, req, cl, func(i int) { fmt.Fprintln(a.stdout, sentences[i].Text) })
	if player.Kind() == audio.SinkFile && q.SavedTo() != "" {
		what := "the reading was"
		if ctx.Err() != nil {
			what = "what was read before the interruption is"
		}
		fmt.Fprintf(a.stderr, "hark: %s The audio: %s saved to %s\n", player.Silence(), what, q.SavedTo())
	}
	var pe *audio.PartError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("read: sentence %d (%q): %w", pe.Part+1, sentences[pe.Part].Text, pe.Err)
	case err != nil:
		return fmt.Errorf("read: playback: %w", err)
	}
	return ctx.Err()
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
