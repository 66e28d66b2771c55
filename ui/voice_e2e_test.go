package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/api/apitest"
	"hark/audio"
	"hark/audio/wav"
	"hark/gateway/embedded"
	"hark/library"
	"hark/ui/common"
	"hark/ui/pages"
	"hark/ui/research"
	"hark/ui/search"
)

// ctrl+r dictation, fed from a WAV that flite spoke (no microphone
// here: c.Record reads the file), through the embedded gateway's
// recogniser over the STT WebSocket: the words fill the Search query
// line, then the Research question line.
func TestE2EDictationFromAFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs flite and pocketsphinx")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := cl.TTS(ctx, api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: "flite:slt", Text: "the quick brown fox jumps over the lazy dog", Format: api.FormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, sp.Data, 0)
	if err != nil {
		t.Fatal(err)
	}
	pcm = audio.Resample(pcm, rate, 16000)
	r := startWith(t, g.URL, g.APIKey, 100, 30, func(c *common.Common) {
		c.Record = func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(pcm)), nil
		}
	})
	r.keys("ctrl+r")
	r.waitFor("the query line filled with what flite said", func(m *Model) bool {
		q := m.panes[0].(*search.Pane).Query()
		return strings.Contains(q, "quick brown fox") && screenHas("quick brown fox")(m)
	})
	r.keys("esc")
	r.keys("3")
	r.waitFor("Research", func(m *Model) bool { return m.Active() == 2 })
	r.keys("ctrl+r")
	r.waitFor("the question line filled", func(m *Model) bool {
		return m.Active() == 2 && screenHas("quick brown fox")(m)
	})
}

// One playback at a time across panes: a report read aloud in Research
// stops when a page is read aloud in Pages. The report's stream never
// ends here, so without the stop it would read on.
func TestE2EOneReadingAtATime(t *testing.T) {
	srv := apitest.New(t)
	head := wav.Header(apitest.SampleRate, wav.StreamSize)
	tone := apitest.Synthesize("a tone of some length")
	whole := append(append([]byte{}, head...), tone...)
	srv.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{whole}, Stall: true},
		apitest.TTSScript{Chunks: [][]byte{whole}}, apitest.TTSScript{Chunks: [][]byte{whole}}, apitest.TTSScript{Chunks: [][]byte{whole}})
	dir := t.TempDir()
	r := startWith(t, srv.URL, apitest.Key, 100, 30, func(c *common.Common) {
		c.Voice = "v1"
		c.Audio = func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }
	})
	out, _ := json.Marshal(api.ResearchOutput{RequestID: "r1", Status: api.ResearchCompleted,
		Content: "# Okapis\n\nThe okapi lives in the Congo. It eats leaves and buds."})
	r.p.Send(common.ShowKeptMsg{Item: library.Item{ID: 7, Kind: library.KindResearch, Tool: api.ToolResearch, Query: "okapis", Output: string(out)}})
	r.waitFor("the report", screenHas("The okapi lives in the Congo"))
	r.keys("R")
	// Its first sentence's audio has arrived (the file sink's file is
	// made) and its stream stays open.
	r.waitFor("the report read aloud", func(m *Model) bool {
		files, _ := filepath.Glob(filepath.Join(dir, "hark-*.wav"))
		return m.panes[2].(*research.Pane).ReadingAloud() && len(files) == 1
	})
	r.p.Send(common.ShowKeptMsg{Item: library.Item{ID: 8, Kind: library.KindPage, Tool: api.ToolExtract, URL: "https://docs.example/quagga",
		Body: "The quagga was a zebra. It lived in South Africa."}})
	r.waitFor("the page in Pages", func(m *Model) bool { return m.Active() == 1 && screenHas("docs.example/quagga")(m) })
	r.keys("enter")
	r.waitFor("the page open", func(m *Model) bool {
		pg := m.panes[1].(*pages.Pane).Reading()
		return pg != nil && screenHas("The quagga was a zebra")(m)
	})
	r.keys("R")
	// The page's reading is a second file; the two notices (the report's
	// "reading stopped", the page's "reading saved to") may come in
	// either order under load, so neither is waited for.
	r.waitFor("the report's reading stopped by the page's", func(m *Model) bool {
		files, _ := filepath.Glob(filepath.Join(dir, "hark-*.wav"))
		return !m.panes[2].(*research.Pane).ReadingAloud() && len(files) == 2
	})
}
