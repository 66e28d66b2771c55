package ui

import (
	"path/filepath"
	"testing"

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
