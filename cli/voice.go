package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/audio/wav"
)

func newVoicesCmd(a *App) *cobra.Command {
	var all, providers bool
	cmd := &cobra.Command{
		Use:   "voices [PROVIDER]",
		Short: "List a provider's voices, or every enabled provider's",
		Long: `voices lists the voices of PROVIDER (default --provider). --all lists every
provider the workspace has enabled, with a PROVIDER column; --providers
lists the providers the gateway knows and whether each is enabled (and if
not, why).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("voices: want at most one PROVIDER, got %d arguments", len(args))
			}
			if len(args) == 1 && (all || providers) {
				return usagef("voices: PROVIDER and --all or --providers do not go together")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			if providers {
				ps, err := cl.VoiceProviders(ctx)
				if err != nil {
					return fromGateway(err)
				}
				if a.jsonOut {
					return writeJSON(a.stdout, ps)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, "PROVIDER\tENGINE\tENABLED\tWHY NOT")
				for _, p := range ps {
					fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", p.Provider, cmp.Or(p.Engine, "-"), p.Enabled, cmp.Or(p.Reason, "-"))
				}
				return tw.Flush()
			}
			names := []string{a.cfg.Provider}
			if len(args) == 1 {
				names = []string{args[0]}
			}
			if all {
				ps, err := cl.VoiceProviders(ctx)
				if err != nil {
					return fromGateway(err)
				}
				names = names[:0]
				for _, p := range ps {
					if p.Enabled {
						names = append(names, p.Provider)
					}
				}
			}
			type row struct {
				api.Voice
				Provider string `json:"provider"`
			}
			var rows []row
			for _, p := range names {
				voices, err := cl.Voices(ctx, p)
				if err != nil {
					return fromGateway(err)
				}
				for _, v := range voices {
					rows = append(rows, row{v, p})
				}
			}
			if a.jsonOut {
				if !all {
					vs := make([]api.Voice, len(rows))
					for i, r := range rows {
						vs[i] = r.Voice
					}
					return writeJSON(a.stdout, vs)
				}
				return writeJSON(a.stdout, rows)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
			head := "VOICE\tNAME\tLANGUAGE\tSCENE\tGENDER\tRATE"
			if all {
				head = "PROVIDER\t" + head
			}
			fmt.Fprintln(tw, head)
			for _, r := range rows {
				v := r.Voice
				gender, rate := cmp.Or(v.Gender, "-"), "-"
				if v.SampleRate > 0 {
					rate = strconv.Itoa(v.SampleRate)
				}
				if all {
					fmt.Fprintf(tw, "%s\t", r.Provider)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.Value, v.Name, cmp.Or(v.Language, "-"), cmp.Or(v.Scene, "-"), gender, rate)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list the voices of every provider the workspace has enabled, with the provider")
	cmd.Flags().BoolVar(&providers, "providers", false, "list the voice providers and whether each is enabled")
	return cmd
}

// formatOfFile is the audio format a file name asks for (hello.wav: wav),
// or "" when its extension names none.
func formatOfFile(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".wav":
		return api.FormatWAV
	case ".mp3":
		return api.FormatMP3
	case ".pcm", ".raw":
		return api.FormatPCM
	}
	return ""
}

// ttsFormat is the format asked for when --format is not given: the one
// -o FILE's extension names, else WAV, a file or stream that says its own
// rate, so that players and "hark stt -" read it as it is. Raw samples
// need --format pcm (or a .pcm or .raw name).
func ttsFormat(out string) string {
	if f := formatOfFile(out); f != "" {
		return f
	}
	return api.FormatWAV
}

func newTTSCmd(a *App) *cobra.Command {
	var (
		out, format                           string
		sampleRate, speechRate, pitch, volume int
		stream                                bool
		extra                                 string
	)
	cmd := &cobra.Command{
		Use:   "tts [TEXT...]",
		Short: "Synthesize speech to a file or stdout",
		Long: `Synthesize TEXT (or stdin when no TEXT is given, or TEXT is -) with the
configured provider and voice. -o FILE writes the audio there, replacing
FILE; -o - or a non-terminal stdout receives the audio; otherwise a file
named tts-<time>.<format> is written to the output directory. Without
--format, the format follows FILE's extension (.wav, .mp3, .pcm or .raw),
else it is WAV (a streamed header on stdout, so "hark tts TEXT | hark stt -"
works); --format pcm gives raw samples. --stream uses the WebSocket endpoint
and writes audio as it arrives.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			text, err := a.spokenText("tts", args)
			if err != nil {
				return err
			}
			if format != "" && format != api.FormatPCM && format != api.FormatMP3 && format != api.FormatWAV {
				return usagef("--format %q: must be pcm, mp3 or wav", format)
			}
			if format == "" {
				format = ttsFormat(out)
			}
			extraObj, err := parseExtra(extra)
			if err != nil {
				return err
			}
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			voice, err := a.voice(ctx, cl)
			if err != nil {
				return err
			}
			req := api.TTSRequest{Provider: a.cfg.Provider, Text: text, VoiceCode: voice, Format: format,
				SampleRate: sampleRate, SpeechRate: speechRate, Pitch: pitch, Loudness: volume, Extra: extraObj}
			dst, name, err := a.audioOut(ctx, out, "tts", format)
			if err != nil {
				return err
			}
			if stream {
				return a.ttsStream(ctx, cl, req, dst, name)
			}
			audio, err := cl.TTS(ctx, req)
			if err != nil {
				dst.abort()
				return fromGateway(err)
			}
			if _, err := dst.Write(audio.Data); err != nil {
				dst.abort()
				return fmt.Errorf("tts: writing %s: %w", name, err)
			}
			if err := dst.Close(); err != nil {
				return fmt.Errorf("tts: writing %s: %w", name, err)
			}
			if a.jsonOut {
				return a.ttsJSON(dst, map[string]any{"file": name, "bytes": len(audio.Data), "format": audio.Format, "sample_rate": audio.SampleRate, "duration_ms": audio.DurationMs})
			}
			fmt.Fprintf(a.stderr, "hark: wrote %d bytes of %s audio (%d Hz, %.1f s) to %s\n", len(audio.Data), audio.Format, audio.SampleRate, float64(audio.DurationMs)/1000, name)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "audio file; - for stdout")
	f.StringVar(&format, "format", "", "pcm, mp3 or wav (default: from -o FILE's extension, else wav)")
	f.IntVar(&sampleRate, "sample-rate", 0, "sample rate in Hz (provider default when 0)")
	f.IntVar(&speechRate, "speech-rate", 0, "speaking rate (provider's range)")
	f.IntVar(&pitch, "pitch", 0, "pitch (provider's range)")
	f.IntVar(&volume, "loudness", 0, "loudness (provider's range)")
	f.BoolVar(&stream, "stream", false, "use the streaming endpoint")
	f.StringVar(&extra, "extra", "", "provider pass-through parameters, a JSON object")
	cmd.RegisterFlagCompletionFunc("format", fixed(api.FormatPCM, api.FormatMP3, api.FormatWAV))
	return cmd
}

// parseExtra reads --extra: empty, or a JSON object passed to the
// provider as the request's extra.
func parseExtra(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, usagef("--extra: must be a JSON object, e.g. '{\"emotion\": \"happy\"}'")
	}
	return m, nil
}

func (a *App) ttsStream(ctx context.Context, cl *api.Client, req api.TTSRequest, dst *audioOut, name string) error {
	s, err := cl.TTSStream(ctx, req)
	if err != nil {
		dst.abort()
		return fromGateway(err)
	}
	defer s.Close()
	dst.streamedWAV = req.Format == api.FormatWAV
	n := 0
	for {
		chunk, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if n == 0 {
				dst.abort()
				return fromGateway(err)
			}
			// Keep what arrived: it is written already.
			dst.Close()
			return fromGateway(fmt.Errorf("%w; kept %d bytes in %s", err, n, name))
		}
		if _, err := dst.Write(chunk); err != nil {
			dst.abort()
			return fmt.Errorf("tts: writing %s: %w", name, err)
		}
		n += len(chunk)
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("tts: writing %s: %w", name, err)
	}
	format := req.Format
	if format == "" {
		format = api.FormatPCM
	}
	if a.jsonOut {
		return a.ttsJSON(dst, map[string]any{"file": name, "bytes": n, "format": format, "trace_id": s.TraceID()})
	}
	fmt.Fprintf(a.stderr, "hark: wrote %d bytes of streamed %s audio to %s\n", n, format, name)
	return nil
}

// ttsJSON prints the audio's metadata: on stdout, or on stderr when
// stdout holds the audio.
func (a *App) ttsJSON(dst *audioOut, summary map[string]any) error {
	w := a.stdout
	if dst.f == nil {
		w = a.stderr
	}
	return writeJSON(w, summary)
}

// voice is the voice to speak with: the configured one, or else
// firstVoice's pick (hark tts, hark read).
func (a *App) voice(ctx context.Context, cl *api.Client) (string, error) {
	if a.cfg.Voice != "" {
		return a.cfg.Voice, nil
	}
	return firstVoice(ctx, cl, a.cfg.Provider)
}

// firstVoice picks a voice when none is configured: the first whose
// language matches the user's locale (en_US.UTF-8 prefers en-us, then
// en), else the provider's first.
func firstVoice(ctx context.Context, cl *api.Client, provider string) (string, error) {
	voices, err := cl.Voices(ctx, provider)
	if err != nil {
		return "", fromGateway(fmt.Errorf("no voice configured, and listing voices failed: %w", err))
	}
	if len(voices) == 0 {
		return "", usagef("no voice configured and provider %s lists none; set --voice or HARK_VOICE", provider)
	}
	return api.DefaultVoice(voices, api.Locale()).Value, nil
}

// audioOut is where audio goes: a file under the -o rule (written to a
// temporary name and renamed on success, kept on a mid-stream failure) or
// stdout.
type audioOut struct {
	w io.Writer
	f *outputFile // nil: stdout
	// streamedWAV: the file holds a WAV whose header was streamed with
	// placeholder sizes; Close writes the true ones.
	streamedWAV bool
}

func (o *audioOut) Write(p []byte) (int, error) { return o.w.Write(p) }

func (o *audioOut) Close() error {
	if o.f == nil {
		return nil
	}
	if o.streamedWAV && !o.f.direct { // a pipe keeps the streamed header, as any WAV stream does
		if err := wav.FixSizes(o.f.File); err != nil {
			o.abort()
			return err
		}
	}
	return o.f.commit()
}

func (o *audioOut) abort() {
	if o.f != nil {
		o.f.abort()
	}
}

// audioOut opens the destination given by -o, or picks one in the output
// directory.
func (a *App) audioOut(ctx context.Context, out, prefix, ext string) (*audioOut, string, error) {
	if out == "-" || out == "" && !isTerminal(a.stdout) {
		return &audioOut{w: a.stdout}, "stdout", nil
	}
	path := out
	if path == "" {
		dir := a.cfg.OutputDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", fmt.Errorf("output_dir %s: %w", dir, err)
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%s.%s", prefix, time.Now().Format("20060102-150405"), ext))
	}
	f, err := createOutput(ctx, path)
	if err != nil {
		return nil, "", err
	}
	return &audioOut{w: f, f: f}, path, nil
}

func newSTTCmd(a *App) *cobra.Command {
	var (
		language   string
		sampleRate int
		stream     bool
		chunk      int
		extra      string
	)
	cmd := &cobra.Command{
		Use:   "stt FILE",
		Short: "Recognize speech in an audio file (- for stdin)",
		Long: `Recognize speech in FILE (mp3, wav, pcm or opus; - reads stdin). By default
the REST endpoint is used; --stream sends the audio over the WebSocket in
chunks and prints partial results as they arrive (on stderr when stdout is
not a terminal), then the final text on stdout.`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var audio []byte
			var err error
			if args[0] == "-" {
				audio, err = readAtMost(a.stdin, maxSTTAudio, "stt: audio from stdin")
			} else {
				audio, err = readFileAtMost(args[0], maxSTTAudio, "stt")
			}
			if err != nil {
				return err
			}
			if len(audio) == 0 {
				return usagef("stt: %s is empty", args[0])
			}
			if chunk < 256 || chunk > 1<<20 {
				return usagef("--chunk %d: must be between 256 and 1048576 bytes", chunk)
			}
			extraObj, err := parseExtra(extra)
			if err != nil {
				return err
			}
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			req := api.STTRequest{Provider: a.cfg.Provider, SampleRate: sampleRate, Language: language, Extra: extraObj}
			if stream {
				return rawPCMHint(a.sttStream(ctx, cl, req, audio, chunk), args[0], sampleRate)
			}
			res, err := cl.STT(ctx, req, audio)
			if err != nil {
				return rawPCMHint(fromGateway(err), args[0], sampleRate)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, res)
			}
			fmt.Fprintln(a.stdout, res.Text)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&language, "language", "", "language code, e.g. en or zh")
	f.IntVar(&sampleRate, "sample-rate", 0, "sample rate in Hz of raw pcm audio")
	f.BoolVar(&stream, "stream", false, "stream over WebSocket and show partial results")
	f.IntVar(&chunk, "chunk", 8192, "bytes per streamed audio frame")
	f.StringVar(&extra, "extra", "", "provider pass-through parameters, a JSON object")
	return cmd
}

// rawPCMHint names the flag where the gateway names its field: audio
// with no header (raw samples) "needs sample_rate", which on the command
// line is --sample-rate.
func rawPCMHint(err error, name string, sampleRate int) error {
	if err == nil || sampleRate != 0 || !strings.Contains(err.Error(), "needs sample_rate") {
		return err
	}
	if name == "-" {
		name = "the audio from stdin"
	}
	return usageError{fmt.Errorf("stt: %s is not wav, mp3 or Ogg Opus; raw pcm (16-bit little-endian mono) needs --sample-rate HZ, e.g. --sample-rate 16000 (the gateway said: %w)", name, err)}
}

func (a *App) sttStream(ctx context.Context, cl *api.Client, req api.STTRequest, audio []byte, chunk int) error {
	s, err := cl.STTStream(ctx, req)
	if err != nil {
		return fromGateway(err)
	}
	defer s.Close()
	writeErr := make(chan error, 1)
	go func() {
		r := bytes.NewReader(audio)
		buf := make([]byte, chunk)
		for {
			n, _ := r.Read(buf)
			if n == 0 {
				break
			}
			if _, err := s.Write(buf[:n]); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- s.CloseSend()
	}()
	live := isTerminal(a.stderr)
	var finals []string
	for f := range s.Results() {
		if a.jsonOut {
			if err := writeJSONLine(a.stdout, f); err != nil {
				return err
			}
			continue
		}
		switch {
		case f.Error != "":
			// Reported through Err below.
		case f.Queued > 0:
			fmt.Fprintf(a.stderr, "waiting for a recogniser: %d in the queue before this one\n", f.Queued-1)
		case f.IsFinal:
			if live {
				fmt.Fprint(a.stderr, "\r\033[K")
			}
			finals = append(finals, f.Text)
			fmt.Fprintln(a.stdout, f.Text)
		case f.IsPartial || f.Text != "":
			if live {
				fmt.Fprintf(a.stderr, "\r\033[K… %s", lastRunes(f.Text, 70))
			} else {
				fmt.Fprintf(a.stderr, "partial %d: %s\n", f.Sequence, f.Text)
			}
		}
	}
	if live {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if err := s.Err(); err != nil {
		return fromGateway(err)
	}
	if err := <-writeErr; err != nil {
		return fromGateway(err)
	}
	return nil
}

func lastRunes(s string, n int) string {
	r := []rune(oneLine(s))
	if len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return string(r)
}

func writeJSONLine(w io.Writer, v any) error {
	var b bytes.Buffer
	if err := writeJSONCompact(&b, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// spokenText is the TEXT a speaking command (tts, audition) was given:
// its arguments joined, or with - or none, what stdin pipes in (at most
// maxTTSText bytes). Text of spaces only is refused.
func (a *App) spokenText(name string, args []string) (string, error) {
	text := strings.Join(args, " ")
	if len(args) == 0 || text == "-" {
		if !stdinIsData(a.stdin) {
			return "", usagef("%s: give TEXT or pipe it on stdin", name)
		}
		b, err := readAtMost(a.stdin, maxTTSText, name+": text from stdin")
		if err != nil {
			return "", err
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return "", usagef("%s: text must not be empty", name)
	}
	return text, nil
}
