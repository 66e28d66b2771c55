// Package uitest holds the helpers the TUI's tests share: golden files
// with an -update flag, and a Common wired to a scripted gateway on
// 127.0.0.1 with a fixed clock.
package uitest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
)

// Update rewrites golden files: go test ./ui/... -update
var Update = flag.Bool("update", false, "rewrite golden files")

// Epoch is the fixed time of test clocks.
var Epoch = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// Golden compares a view (escape sequences removed, trailing blanks
// trimmed) with testdata/<name>.golden.
func Golden(t testing.TB, name, view string) {
	t.Helper()
	got := Plain(view)
	path := filepath.Join("testdata", name+".golden")
	if *Update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("view differs from %s (go test -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// Plain removes escape sequences and trailing blanks of each line.
func Plain(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Clock is a settable test clock.
type Clock struct{ T time.Time }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// Common returns a Common talking to srv (nil for none), with the tool
// list srv serves already loaded, dark styles and a fixed clock.
func Common(t testing.TB, srv *apitest.Server) (*common.Common, *Clock) {
	t.Helper()
	clk := &Clock{T: Epoch}
	c := &common.Common{
		Styles:    common.NewStyles(true, false),
		Gateway:   "test gateway",
		OutputDir: t.TempDir(),
		Clock:     clk.Now,
	}
	if srv != nil {
		cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key})
		if err != nil {
			t.Fatal(err)
		}
		c.Client = cl
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tools, err := cl.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = tools
	} else {
		tools, err := api.DecodeToolList([]byte(ToolList))
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = tools
	}
	return c, clk
}

// Press makes the key press that key.Binding names s: "enter", "esc",
// "shift+tab", "ctrl+k", "pgdown", "space", or a single character.
func Press(s string) tea.KeyPressMsg {
	named := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	}
	switch {
	case s == "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case s == "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case strings.HasPrefix(s, "ctrl+") && len(s) == 6:
		return tea.KeyPressMsg{Code: rune(s[5]), Mod: tea.ModCtrl}
	}
	if r, ok := named[s]; ok {
		return tea.KeyPressMsg{Code: r}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// Type makes one key press per character of text.
func Type(text string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range text {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

// Exec runs a command and the commands of any batch it returns, each with
// a time limit, and returns the messages they produced (not running the
// commands those messages lead to).
func Exec(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(15 * time.Second):
		return nil
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, Exec(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// Settle feeds what cmd produces back through update until nothing is
// left, skipping spinner ticks and cursor blinks, which never end.
func Settle(update func(tea.Msg) tea.Cmd, cmd tea.Cmd) {
	for i := 0; cmd != nil && i < 50; i++ {
		var next []tea.Cmd
		for _, m := range Exec(cmd) {
			if Ticking(m) {
				continue
			}
			next = append(next, update(m))
		}
		cmd = tea.Batch(next...)
	}
}

// Ticking reports the self-renewing messages of spinners and cursors.
func Ticking(m tea.Msg) bool {
	t := fmt.Sprintf("%T", m)
	return strings.HasPrefix(t, "spinner.") || strings.HasPrefix(t, "cursor.") || strings.HasPrefix(t, "textinput.")
}

// ToolList is the embedded gateway's tool list, the fixture a gateway
// test writes (api/apitest/toollist.json): forms and goldens are drawn
// from what the gateway really serves.
var ToolList = string(apitest.DefaultToolList)
