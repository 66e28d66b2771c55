//go:build cgo && linux

package voices

import (
	"context"
	"testing"

	"hark/api"
	"hark/ui/common"
)

// With no voice configured the pane starts where docs/voices-pane.md
// says: on the default voice of the real voice list, flite:rms in a US
// English locale, the voice the README's round trip uses.
func TestStartsOnTheDocumentedDefaultVoice(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the local engines' voices")
	}
	t.Setenv("LC_ALL", "en_US.UTF-8")
	cl := startGateway(t)
	vs, err := cl.Voices(context.Background(), api.DefaultProvider)
	if err != nil {
		t.Fatal(err)
	}
	p := New(&common.Common{Client: cl, Styles: common.NewStyles(true, true)})
	p.onVoices(voicesMsg{provider: p.provider, voices: vs})
	if p.voice.Value != "flite:rms" {
		t.Errorf("the pane starts on %q, want flite:rms", p.voice.Value)
	}
}
