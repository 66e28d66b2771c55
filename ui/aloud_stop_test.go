package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/api/apitest"
	"hark/audio"
	"hark/audio/wav"
	"hark/library"
	"hark/ui/common"
	"hark/ui/pages"
)

// Reading aloud with no sound device goes to a file; stopped with esc,
// it says where that file is (it holds what was read ahead), never
// leaving a WAV written unsaid.
func TestE2EStoppedReadingSaysWhereItWent(t *testing.T) {
	srv := apitest.New(t)
	head := wav.Header(apitest.SampleRate, wav.StreamSize)
	whole := append(append([]byte{}, head...), apitest.Synthesize("a tone of some length")...)
	srv.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{whole}, Stall: true})
	dir := t.TempDir()
	r := startWith(t, srv.URL, apitest.Key, 100, 30, func(c *common.Common) {
		c.Voice = "v1"
		c.Audio = func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }
	})
	r.p.Send(common.ShowKeptMsg{Item: library.Item{ID: 8, Kind: library.KindPage, Tool: api.ToolExtract, URL: "https://docs.example/quagga",
		Body: "The quagga was a zebra. It lived in South Africa. It is gone now."}})
	r.waitFor("the page in Pages", func(m *Model) bool { return m.Active() == 1 && screenHas("docs.example/quagga")(m) })
	r.keys("enter")
	r.waitFor("the page open", func(m *Model) bool {
		return m.panes[1].(*pages.Pane).Reading() != nil && screenHas("The quagga was a zebra")(m)
	})
	r.keys("R")
	r.waitFor("the reading under way, into a file", func(m *Model) bool {
		files, _ := filepath.Glob(filepath.Join(dir, "hark-*.wav"))
		return len(files) == 1 && screenHas("reading aloud")(m)
	})
	r.keys("esc")
	r.waitFor("the stop saying where the file is", screenHas("reading stopped; saved so far to"))
}

// A page is read aloud a batch of sentences per call, not a call per
// sentence (a call costs a credit at least): the first sentence alone,
// for a quick first sound, then the rest together; every sentence is
// still highlighted in turn.
func TestE2EReadAloudBatchesSentences(t *testing.T) {
	srv := apitest.New(t)
	head := wav.Header(apitest.SampleRate, wav.StreamSize)
	whole := append(append([]byte{}, head...), apitest.Synthesize("a tone of some length")...)
	srv.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{whole}}, apitest.TTSScript{Chunks: [][]byte{whole}}, apitest.TTSScript{Chunks: [][]byte{whole}})
	dir := t.TempDir()
	var mu sync.Mutex
	var played []int
	r := startWith(t, srv.URL, apitest.Key, 100, 30, func(c *common.Common) {
		c.Voice = "v1"
		c.Audio = func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }
		send := c.Send
		c.Send = func(m tea.Msg) {
			if a, ok := m.(common.AloudMsg); ok && !a.Done {
				mu.Lock()
				played = append(played, a.Index)
				mu.Unlock()
			}
			send(m)
		}
	})
	var body strings.Builder
	for i := range 12 {
		fmt.Fprintf(&body, "Sentence number %d of the page is here. ", i+1)
	}
	r.p.Send(common.ShowKeptMsg{Item: library.Item{ID: 8, Kind: library.KindPage, Tool: api.ToolExtract, URL: "https://docs.example/long", Body: body.String()}})
	r.waitFor("the page in Pages", func(m *Model) bool { return m.Active() == 1 && screenHas("docs.example/long")(m) })
	r.keys("enter")
	r.waitFor("the page open", screenHas("Sentence number 1 of the page"))
	r.keys("R")
	r.waitFor("the whole page read", func(m *Model) bool {
		mu.Lock()
		defer mu.Unlock()
		return len(played) == 12 && screenHas("reading saved to")(m)
	})
	if n := srv.Count(api.PathTTSStream); n != 2 {
		t.Errorf("12 sentences took %d TTS calls, want 2 (the first alone, then the rest)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(played) != "[0 1 2 3 4 5 6 7 8 9 10 11]" {
		t.Errorf("sentences highlighted %v, want each in turn", played)
	}
}
