package tools

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// unknownTool is a tool hark has never heard of, with one field of every kind.
const unknownTool = `{"slug": "acme_translate", "name": "Translate", "description": "Translate text",
 "input_schema": {"type": "object", "required": ["text"], "properties": {
  "text": {"type": "string", "description": "what to translate"},
  "target": {"type": "string", "enum": ["de", "fr", "ja"], "default": "de"},
  "formal": {"type": "boolean", "default": false},
  "count": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1},
  "as_of": {"type": "string", "format": "date"},
  "glossary": {"type": "array", "items": {"type": "string"}}}}}`

func withUnknown(t *testing.T) (*apitest.Server, *common.Common) {
	srv := apitest.New(t)
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(uitest.ToolList), &list); err != nil {
		t.Fatal(err)
	}
	list.Tools = append(list.Tools, json.RawMessage(unknownTool))
	b, _ := json.Marshal(list)
	srv.SetToolList(string(b))
	c, _ := uitest.Common(t, srv)
	return srv, c
}

func send(p *Pane, msgs ...tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, m := range msgs {
		_, c := p.Update(m)
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...)
}

func keys(s string) []tea.Msg {
	var out []tea.Msg
	for _, k := range uitest.Type(s) {
		out = append(out, k)
	}
	return out
}

func TestUnknownToolFormAndTree(t *testing.T) {
	srv, c := withUnknown(t)
	srv.Script(apitest.InvokePath("acme_translate"), apitest.OK(map[string]any{
		"service": "vendor_search", "tool": "acme_translate",
		"output": map[string]any{"translations": []any{map[string]any{"text": "Hallo", "confidence": 0.9}}, "billing": map[string]any{"credits": 2}},
	}))
	p := New(c)
	p.SetSize(80, 24)
	p.Update(common.ToolsMsg{Tools: c.Tools})
	uitest.Golden(t, "list_80x24", p.View())
	p.Update(common.EditToolMsg{Slug: "acme_translate"})
	f := p.Form()
	if f == nil {
		t.Fatal("no form")
	}
	kinds := map[string]string{}
	for _, ctl := range f.Controls {
		kinds[ctl.Field.Name] = ctl.Kind.String()
	}
	want := map[string]string{"text": "text", "target": "select", "formal": "toggle", "count": "integer", "as_of": "date", "glossary": "list"}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("field %s got control %s, want %s", k, kinds[k], v)
		}
	}
	// Enter with the required text empty explains it inline, sends nothing.
	if cmd := send(p, uitest.Press("enter")); cmd != nil {
		if msgs := uitest.Exec(cmd); len(msgs) > 0 {
			t.Fatalf("invalid form sent %v", msgs)
		}
	}
	uitest.Golden(t, "form_invalid_80x24", p.View())
	if !strings.Contains(uitest.Plain(p.View()), "✗ text is required") {
		t.Errorf("no inline error:\n%s", uitest.Plain(p.View()))
	}
	send(p, keys("hello")...)
	send(p, uitest.Press("tab"), uitest.Press("right"), uitest.Press("tab"), uitest.Press("space"), uitest.Press("tab"))
	send(p, uitest.Press("backspace"))
	send(p, keys("9")...)
	if !strings.Contains(uitest.Plain(p.View()), "count must be between 1 and 3") {
		t.Errorf("no range error:\n%s", uitest.Plain(p.View()))
	}
	send(p, uitest.Press("backspace"))
	send(p, keys("2")...)
	send(p, uitest.Press("tab"))
	send(p, keys("2026-13-01")...)
	if !strings.Contains(uitest.Plain(p.View()), "as_of must be a date in the form YYYY-MM-DD") {
		t.Errorf("no date error:\n%s", uitest.Plain(p.View()))
	}
	for range 5 {
		send(p, uitest.Press("backspace"))
	}
	send(p, keys("02-03")...)
	send(p, uitest.Press("tab"))
	send(p, keys("hi=hallo, bye=tschüss")...)
	uitest.Golden(t, "form_filled_80x24", p.View())
	msgs := uitest.Exec(send(p, uitest.Press("enter")))
	if len(msgs) != 1 {
		t.Fatalf("submit gave %v", msgs)
	}
	run, ok := msgs[0].(common.RunToolMsg)
	if !ok {
		t.Fatalf("submit gave %T", msgs[0])
	}
	// No pane handles this tool, so the root gives it back to Tools.
	uitest.Settle(func(m tea.Msg) tea.Cmd { _, c := p.Update(m); return c }, send(p, run))
	var body api.InvokeRequest
	if err := json.Unmarshal(srv.Last(apitest.InvokePath("acme_translate")).Body, &body); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body.Inputs)
	if string(b) != `{"as_of":"2026-02-03","count":2,"formal":true,"glossary":["hi=hallo","bye=tschüss"],"target":"fr","text":"hello"}` {
		t.Errorf("sent %s", b)
	}
	tr := p.Tree()
	if tr == nil {
		t.Fatalf("no output tree:\n%s", uitest.Plain(p.View()))
	}
	uitest.Golden(t, "tree_80x24", p.View())
	// Navigate and fold.
	send(p, uitest.Press("j"), uitest.Press("j"), uitest.Press("j"), uitest.Press("enter"))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "translations: [ 1 item ]") {
		t.Errorf("fold did not collapse:\n%s", v)
	}
	send(p, uitest.Press("esc"))
	if p.Tree() != nil {
		t.Error("esc should go back to the list")
	}
}

func TestToolListErrorShown(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Tools = nil
	p := New(c)
	p.SetSize(80, 24)
	p.Update(common.ToolsMsg{Err: &api.Error{HTTPStatus: 401, Message: "invalid or missing API key", TraceID: "t-1"}})
	v := uitest.Plain(p.View())
	for _, want := range []string{"invalid or missing API key", "trace_id t-1", "API key"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
}

// A gateway with many tools: the list scrolls with the cursor at 80x24,
// the screen never overflows, and a click opens the tool drawn under it.
func TestManyToolsScrollAndClick(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	base := c.Tools[0]
	c.Tools = nil
	for i := range 40 {
		tl := base
		tl.Slug = "tool_" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		c.Tools = append(c.Tools, tl)
	}
	p := New(c)
	p.SetSize(80, 22)
	for range 30 {
		p.Update(uitest.Press("down"))
	}
	v := uitest.Plain(p.View())
	lines := strings.Split(strings.TrimRight(v, "\n"), "\n")
	if len(lines) > 22 {
		t.Fatalf("view is %d lines for a 22-line pane:\n%s", len(lines), v)
	}
	want := c.Tools[30].Slug
	row := -1
	for y, l := range lines {
		if strings.HasPrefix(l, "▌ "+want) {
			row = y
		}
	}
	if row < 0 {
		t.Fatalf("the tool under the cursor (%s) is not drawn:\n%s", want, v)
	}
	if !strings.Contains(v, "more: enter opens the form") {
		t.Errorf("inputs cut without saying so:\n%s", v)
	}
	// The row above the cursor, clicked twice, opens that tool's form.
	p.Update(tea.MouseClickMsg{X: 4, Y: row - 1, Button: tea.MouseLeft})
	p.Update(tea.MouseClickMsg{X: 4, Y: row - 1, Button: tea.MouseLeft})
	if p.view != formView || p.form.Tool.Slug != c.Tools[29].Slug {
		t.Errorf("clicks on %s's row opened %v", c.Tools[29].Slug, p.form)
	}
}
