package search

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
)

type doneMsg struct {
	seq int
	out *api.SearchOutput
	err error
}

// cancelKey is the key that cancels now: x, or ctrl+x while the query
// line has the cursor (x types there).
func (p *Pane) cancelKey() string {
	if p.query.Focused() {
		return "ctrl+x"
	}
	return "x"
}

// cancelRun stops the search under way, else the indexing.
func (p *Pane) cancelRun() {
	switch {
	case p.calls().Running():
		p.calls().Cancel()
	case p.ix.running:
		p.ix.cancel()
	}
}

// search runs the query line through the generated form, so defaults and
// rules come from the runtime tool list.
func (p *Pane) search() tea.Cmd {
	f := p.newForm(false)
	if !f.Validate() {
		// A quick option cannot be invalid, but a field the gateway added
		// could be required: show the form with its inline errors.
		p.form = f
		f.SetSize(p.width, p.height-2)
		return nil
	}
	return p.run(Slug, f.Inputs())
}

// calls runs the searches, one at a time.
func (p *Pane) calls() common.Calls { return common.NewCalls(&p.seq, p.runs, &p.progress) }

func (p *Pane) run(slug string, inputs map[string]any) tea.Cmd {
	client := p.c.Client
	p.err = nil
	inputs = p.withoutDefaults(inputs)
	p.inputs = inputs
	p.useSent(inputs)
	return p.calls().Start("searching", p.c.Now(), func(ctx context.Context, seq int) tea.Msg {
		res, err := common.Invoke(ctx, client, slug, inputs)
		if err != nil {
			return doneMsg{seq: seq, err: err} // "invoke vendor_search: …" says what failed
		}
		out, err := api.DecodeSearch(res.Output)
		return doneMsg{seq: seq, out: out, err: err}
	})
}

// lastQuery is the query the results on screen answer (the line may have
// been edited since).
func (p *Pane) lastQuery() string {
	if q, ok := p.inputs["query"].(string); ok {
		return q
	}
	if p.out != nil {
		return p.out.Query
	}
	return ""
}
