package common

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
	"hark/audio"
)

// The line follows what is heard, keeps what it held when nothing was,
// and a dictation's messages reach only the line that started it.
func TestDictatorUpdate(t *testing.T) {
	c := &Common{}
	var search, research Dictator
	search.Toggle(c, "old query")
	research.Toggle(c, "")
	search.stop()
	research.stop()
	if _, ok, _ := research.Update(DictationMsg{ID: search.id, Text: "memory"}); ok {
		t.Fatal("research took search's dictation")
	}
	if text, ok, err := search.Update(DictationMsg{ID: search.id, Text: "memory leak"}); !ok || err != nil || text != "memory leak" || !search.Active() {
		t.Errorf("partial: %q %v %v", text, ok, err)
	}
	if text, _, err := search.Update(DictationMsg{ID: search.id, Final: true, Text: "memory leak detection"}); err != nil || text != "memory leak detection" || search.Active() {
		t.Errorf("final: %q %v", text, err)
	}
	search.Toggle(c, "kept")
	search.stop()
	if text, _, err := search.Update(DictationMsg{ID: search.id, Final: true}); text != "kept" || err == nil || !strings.Contains(err.Error(), "no words") {
		t.Errorf("nothing heard: %q %v", text, err)
	}
	search.Toggle(c, "kept")
	search.stop()
	if text, _, err := search.Update(DictationMsg{ID: search.id, Final: true, Err: errors.New("dictation: no microphone")}); text != "kept" || err == nil {
		t.Errorf("failure: %q %v", text, err)
	}
}

// A stream that dies keeps what was heard in the line, rather than the
// text the line held before; the recording comes from c.Record.
func TestDictationKeepsWhatWasHeardWhenTheStreamFails(t *testing.T) {
	srv := apitest.New(t)
	srv.ScriptSTT(apitest.STTScript{CutAfterChunks: 3})
	cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var live []DictationMsg
	c := &Common{Client: cl, Send: func(m tea.Msg) { mu.Lock(); live = append(live, m.(DictationMsg)); mu.Unlock() },
		Record: func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(make([]byte, 10*dictationRate*2/10))), nil // 1 s of silence
		}}
	var d Dictator
	cmd := d.Toggle(c, "old query")
	final := cmd().(DictationMsg)
	mu.Lock()
	for _, m := range live {
		d.Update(m)
	}
	mu.Unlock()
	text, ok, err := d.Update(final)
	if !ok || err == nil || text != "heard 6400 bytes" {
		t.Errorf("after the stream died: line %q, error %v; want the last words heard and the error", text, err)
	}
}

// The no-microphone message reads whole on an 80-column status line.
func TestNoMicrophoneMessageIsShort(t *testing.T) {
	c := &Common{Client: &api.Client{}, Record: func(context.Context) (io.ReadCloser, error) {
		return nil, &audio.CaptureError{Reasons: []string{"arecord: Unknown PCM default"}}
	}}
	t.Setenv("SSH_CONNECTION", "")
	t.Setenv("SSH_TTY", "")
	cmd, _ := Dictate(c, 1)
	m := cmd().(DictationMsg)
	if m.Err == nil || !strings.Contains(m.Err.Error(), "no microphone") || ansi.StringWidth("✗ "+m.Err.Error()) > 78 {
		t.Errorf("%v", m.Err)
	}
}

// A microphone that goes on (left listening, or a device yielding
// silence faster than it plays) is cut after maxDictation of audio,
// keeping what was heard, and says so.
func TestDictationStopsAtItsLimit(t *testing.T) {
	srv := apitest.New(t)
	cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key})
	if err != nil {
		t.Fatal(err)
	}
	limit := int(maxDictation/time.Second) * dictationRate * 2
	c := &Common{Client: cl, Record: func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(make([]byte, limit*3/2))), nil
	}}
	var d Dictator
	text, _, err := d.Update(d.Toggle(c, "old query")().(DictationMsg))
	if err == nil || !strings.Contains(err.Error(), "stopped after 2m of audio") || text != fmt.Sprintf("heard %d bytes", limit) {
		t.Errorf("line %q, error %v; want %d bytes sent and the limit named", text, err, limit)
	}
}
