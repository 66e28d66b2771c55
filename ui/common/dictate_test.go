package common

import (
	"errors"
	"strings"
	"testing"
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
