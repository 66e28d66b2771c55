package uitest

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

func TestPress(t *testing.T) {
	for _, s := range []string{"enter", "esc", "shift+tab", "ctrl+k", "A", "?", ":", "space", "pgdown", "+", "/"} {
		m := Press(s)
		if !key.Matches(m, key.NewBinding(key.WithKeys(s))) {
			t.Errorf("%s -> %q", s, m.String())
		}
	}
}
