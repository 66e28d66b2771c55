// Package tools is the Tools pane: every tool of the runtime list, a form
// generated from its fields, and the output of tools without a rich view
// as a navigable, collapsible JSON tree. A tool the gateway adds later
// works here with no code change.
package tools

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
	"hark/ui/form"
	"hark/ui/jsontree"
)

type doneMsg struct {
	seq  int
	tool string
	raw  []byte
	err  error
}

type view int

const (
	listView view = iota
	formView
	outputView
)

// Pane is the Tools pane.
type Pane struct {
	c        *common.Common
	cursor   int
	view     view
	form     *form.Form
	tree     *jsontree.Tree
	outTool  string
	err      error
	toolsErr error
	progress common.Progress
	runs     map[int]context.CancelFunc // the call under way (Calls)
	seq      int
	width    int
	height   int
	offset   int // first tool drawn
	listTop  int // pane row of the first tool drawn, for clicks
	// sent is what each tool's form last sent, and how it failed: the
	// form reopens with it, so nothing typed is lost to an error.
	sent map[string]*sentForm
}

type sentForm struct {
	inputs map[string]any
	err    error // the call's failure, nil while none is known
}

// New returns the Tools pane.
func New(c *common.Common) *Pane {
	return &Pane{c: c, progress: common.NewProgress(), runs: map[int]context.CancelFunc{}, sent: map[string]*sentForm{}}
}

func (p *Pane) Title() string       { return "Tools" }
func (p *Pane) Init() tea.Cmd       { return nil }
func (p *Pane) KeyMap() help.KeyMap { return p.c.Keys().Tools }
func (p *Pane) Capturing() bool     { return p.view == formView }

// Form returns the open form, or nil.
func (p *Pane) Form() *form.Form {
	if p.view == formView {
		return p.form
	}
	return nil
}

// Tree returns the output tree shown, or nil.
func (p *Pane) Tree() *jsontree.Tree {
	if p.view == outputView {
		return p.tree
	}
	return nil
}

func (p *Pane) SetSize(w, h int) {
	p.width, p.height = max(0, w), max(0, h)
	if p.form != nil {
		p.form.SetSize(w, h-3)
	}
	if p.tree != nil {
		p.tree.SetSize(w, h-2)
	}
}

func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case common.ToolsMsg:
		p.toolsErr = msg.Err
		p.list().Clamp()
	case common.EditToolMsg:
		for i, t := range p.c.Tools {
			if t.Slug == msg.Slug {
				p.cursor = i
				return p, p.openForm()
			}
		}
		return p, nil
	case common.ToolFailedMsg:
		// A call this pane's form sent failed, in whichever pane ran it:
		// keep the failure with the values, and on a refusal bring the
		// form back at once, at the field the gateway named.
		te := msg.Err
		last := p.sent[te.Slug]
		if last == nil || !reflect.DeepEqual(last.inputs, te.Inputs) {
			return p, nil
		}
		last.err = te
		if !form.Refused(te) {
			return p, nil
		}
		slug := te.Slug
		return p, func() tea.Msg { return common.EditToolMsg{Slug: slug} }
	case common.RunToolMsg:
		return p, p.run(msg.Tool.Slug, msg.Inputs)
	case doneMsg:
		if !p.calls().Done(msg.seq) {
			return p, nil
		}
		if msg.err != nil {
			p.err = msg.err
			return p, func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
		}
		root, err := jsontree.Parse(msg.raw)
		if err != nil {
			p.err = fmt.Errorf("%s: %w", msg.tool, err)
			return p, nil
		}
		p.tree = jsontree.New(root, p.c.Styles)
		p.tree.Keys = p.c.Keys().Tools.Tree
		p.tree.SetSize(p.width, p.height-2)
		p.outTool, p.view = msg.tool, outputView
		return p, nil
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case tea.PasteMsg:
		if p.view == formView {
			_, cmd := p.form.Update(msg)
			return p, cmd
		}
	case tea.MouseWheelMsg:
		if p.view == outputView {
			return p, p.tree.Update(msg)
		}
		if msg.Button == tea.MouseWheelUp {
			p.move(-1)
		} else if msg.Button == tea.MouseWheelDown {
			p.move(1)
		}
	case tea.MouseClickMsg:
		if p.view == listView {
			if again, ok := p.list().Click(msg.Y - p.listTop); ok && again {
				return p, p.openForm()
			}
		}
	}
	return p, p.progress.Update(msg)
}

// list is the cursor over the tool list.
func (p *Pane) list() common.List { return common.NewList(&p.cursor, &p.offset, len(p.c.Tools)) }

func (p *Pane) move(d int) { p.list().Move(d) }

// openForm opens the form of the tool under the cursor, with what it
// last sent and, when that failed, the failure: at the field it names,
// or above the form.
func (p *Pane) openForm() tea.Cmd {
	if p.cursor >= len(p.c.Tools) {
		return nil
	}
	t := p.c.Tools[p.cursor]
	p.form = form.New(t, p.c.Styles)
	p.form.Keys = p.c.Keys().Form
	p.form.SetSize(p.width, p.height-3)
	p.view = formView
	p.err = nil
	last := p.sent[t.Slug]
	if last == nil {
		return nil
	}
	p.form.SetInputs(last.inputs)
	if last.err == nil {
		return nil
	}
	if named, cmd := p.form.FailOn(last.err); named {
		return cmd
	}
	p.err = last.err
	return nil
}

func (p *Pane) key(msg tea.KeyPressMsg) tea.Cmd {
	switch p.view {
	case formView:
		act, cmd := p.form.Update(msg)
		switch act {
		case form.Cancel:
			p.view = listView
		case form.Submit:
			t, in := p.form.Tool, p.form.Inputs()
			p.view = listView
			p.sent[t.Slug] = &sentForm{inputs: in}
			// The root hands known tools to their rich pane and gives
			// every other tool back to this pane.
			return func() tea.Msg { return common.RunToolMsg{Tool: t, Inputs: in} }
		}
		return cmd
	case outputView:
		if key.Matches(msg, p.c.Keys().Tools.Back) {
			p.view = listView
			return nil
		}
		return p.tree.Update(msg)
	}
	switch {
	case key.Matches(msg, p.c.Keys().Tools.Up):
		p.move(-1)
	case key.Matches(msg, p.c.Keys().Tools.Down):
		p.move(1)
	case key.Matches(msg, p.c.Keys().Tools.Open):
		return p.openForm()
	case key.Matches(msg, p.c.Keys().Tools.Cancel):
		p.calls().Cancel()
	case msg.String() == "o" && p.tree != nil:
		p.view = outputView
	}
	return nil
}

// run invokes any tool and shows its output as a JSON tree.
// calls runs the tools, one at a time.
func (p *Pane) calls() common.Calls { return common.NewCalls(&p.seq, p.runs, &p.progress) }

func (p *Pane) run(slug string, inputs map[string]any) tea.Cmd {
	p.err = nil
	client := p.c.Client
	return p.calls().Start("running "+slug, p.c.Now(), func(ctx context.Context, seq int) tea.Msg {
		res, err := common.Invoke(ctx, client, slug, inputs)
		if err != nil {
			return doneMsg{seq: seq, tool: slug, err: err} // "invoke acme_translate: …" names the tool
		}
		raw := []byte(res.Output)
		if len(raw) == 0 {
			raw = []byte("null")
		}
		return doneMsg{seq: seq, tool: slug, raw: raw}
	})
}

// View draws the tool list with the selected tool's fields, the form, or
// the output tree.
func (p *Pane) View() string {
	s := p.c.Styles
	var top []string
	if p.progress.Active {
		top = append(top, p.progress.View(s, p.c.Now())+s.Dim.Render("  x cancels"))
	}
	if p.err != nil {
		top = append(top, common.ErrorView(s, p.err, p.width))
	}
	head := strings.Join(top, "\n")
	if head != "" {
		head += "\n"
	}
	switch p.view {
	case formView:
		t := p.form.Tool
		title := s.Title.Render(t.Name) + s.Dim.Render("  "+t.Slug+" · enter runs · esc closes")
		return common.Fit(head+title+"\n"+s.Dim.Render(common.Truncate(common.OneLine(t.Description), p.width))+"\n"+p.form.View(), p.width, p.height)
	case outputView:
		title := s.Title.Render("Output of "+p.outTool) + s.Dim.Render("  enter folds · E/C unfold/fold all · esc back")
		return common.Fit(head+title+"\n"+p.tree.View(), p.width, p.height)
	}
	if p.toolsErr != nil && len(p.c.Tools) == 0 {
		return common.Fit(head+common.ErrorView(s, common.ToolListError(p.toolsErr), p.width), p.width, p.height)
	}
	lines := []string{s.Title.Render(fmt.Sprintf("Tools (%d)", len(p.c.Tools))) + s.Dim.Render("  from the gateway's live list · enter opens a form"), ""}
	var inputs []api.Field
	var tool api.Tool
	if p.cursor < len(p.c.Tools) {
		tool = p.c.Tools[p.cursor]
		inputs = tool.Inputs
	}
	// The rows left for the tool list and the inputs of the one under the
	// cursor; a long list scrolls, long inputs end in "… N more".
	avail := max(0, p.height-strings.Count(head, "\n")-len(lines))
	if p.tree != nil {
		avail -= 2
	}
	listRows := len(p.c.Tools)
	if need := 2 + len(inputs); listRows+need > avail {
		listRows = min(len(p.c.Tools), max(3, avail-need, avail/2))
	}
	start, end := p.list().Window(listRows)
	p.listTop = strings.Count(head, "\n") + len(lines)
	nameW := 8
	for _, t := range p.c.Tools {
		nameW = max(nameW, len(t.Slug)+1)
	}
	nameW = min(nameW, 28)
	for i := start; i < end; i++ {
		t := p.c.Tools[i]
		cur, ts := "  ", s.Text
		if i == p.cursor {
			cur, ts = s.Key.Render("▌ "), s.Selected
		}
		slug := common.Truncate(t.Slug, nameW)
		pad := strings.Repeat(" ", max(1, nameW-len([]rune(slug))+1))
		lines = append(lines, common.Truncate(cur+ts.Render(slug)+pad+s.Dim.Render(common.OneLine(t.Description)), p.width))
	}
	if listRows < len(p.c.Tools) {
		lines[0] += s.Dim.Render(fmt.Sprintf(" · %d-%d shown", start+1, end))
	}
	if tool.Slug != "" {
		lines = append(lines, "", s.Label.Render(fmt.Sprintf("%s takes %d inputs:", tool.Slug, len(inputs))))
		room := avail - listRows - 2
		// Names and kinds in columns, as the tools above them are.
		inW, kindW := 0, 0
		for _, f := range inputs {
			inW = max(inW, min(26, len(f.Name)+1))
			kindW = max(kindW, len(form.KindOf(f).String()))
		}
		for i, f := range inputs {
			if i == room-1 && len(inputs) > room {
				lines = append(lines, s.Dim.Render(fmt.Sprintf("  … %d more: enter opens the form with all of them", len(inputs)-i)))
				break
			}
			req := ""
			if f.Required {
				req = "*"
			}
			name, kind := f.Name+req, form.KindOf(f).String()
			namePad := strings.Repeat(" ", max(1, inW-len(name)+1))
			kindPad := strings.Repeat(" ", max(2, kindW-len(kind)+2))
			lines = append(lines, common.Truncate("  "+s.Text.Render(name)+namePad+s.Dim.Render(kind+kindPad+common.OneLine(f.Description)), p.width))
		}
	}
	if p.tree != nil {
		lines = append(lines, "", s.Dim.Render("o shows the last output ("+p.outTool+")"))
	}
	return common.Fit(head+strings.Join(lines, "\n"), p.width, p.height)
}
