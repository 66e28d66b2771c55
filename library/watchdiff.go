package library

// What changed on a watched page, measured on its extracted text: a word
// diff of the text before the change and after it, and the highlights
// and report quotes the change touches.

import (
	"context"
	"strings"
	"unicode/utf8"

	"hark/api"
)

// DiffOp is one run of a word diff: words kept, deleted or inserted.
// From and To are byte offsets of a deleted or kept run in the old text,
// of an inserted run in the new.
type DiffOp struct {
	Kind     byte // '=', '-', '+'
	Text     string
	From, To int
}

// wordSpan is a word of a text and where it is.
type wordSpan struct {
	w          string
	start, end int
}

func wordSpans(s string) []wordSpan {
	var out []wordSpan
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		if j > i {
			out = append(out, wordSpan{s[i:j], i, j})
		}
		i = j
	}
	return out
}

// WordDiff is the word diff of old and new (Myers' algorithm over words,
// the common head and tail taken off first), runs of the same kind
// joined.
func WordDiff(old, new string) []DiffOp {
	a, b := wordSpans(old), wordSpans(new)
	head := 0
	for head < len(a) && head < len(b) && a[head].w == b[head].w {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail].w == b[len(b)-1-tail].w {
		tail++
	}
	var ops []DiffOp
	add := func(kind byte, ws []wordSpan) {
		for _, w := range ws {
			if n := len(ops); n > 0 && ops[n-1].Kind == kind {
				ops[n-1].Text += " " + w.w
				ops[n-1].To = w.end
				continue
			}
			ops = append(ops, DiffOp{Kind: kind, Text: w.w, From: w.start, To: w.end})
		}
	}
	add('=', a[:head])
	for _, e := range myers(a[head:len(a)-tail], b[head:len(b)-tail]) {
		switch e.kind {
		case '=', '-':
			add(e.kind, []wordSpan{a[head+e.i]})
		case '+':
			add('+', []wordSpan{b[head+e.j]})
		}
	}
	add('=', a[len(a)-tail:])
	return ops
}

type edit struct {
	kind byte
	i, j int
}

// myers is the shortest edit script from a to b.
func myers(a, b []wordSpan) []edit {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[max+k-1] < v[max+k+1] {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x].w == b[y].w {
				x, y = x+1, y+1
			}
			v[max+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, max, d)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, a, b []wordSpan, max, d int) []edit {
	x, y := len(a), len(b)
	var out []edit
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && v[max+k-1] < v[max+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[max+pk]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			out = append(out, edit{'=', x, y})
		}
		if x == px {
			y--
			out = append(out, edit{'+', x, y})
		} else {
			x--
			out = append(out, edit{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		out = append(out, edit{'=', x, y})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Changed reports whether the diff changes anything.
func Changed(ops []DiffOp) bool {
	for _, o := range ops {
		if o.Kind != '=' {
			return true
		}
	}
	return false
}

// touches reports whether the change touches old[from:to]: a word of it
// deleted, or words inserted inside it.
func touches(ops []DiffOp, from, to int) bool {
	at := 0 // where in the old text the next insertion lands
	for _, o := range ops {
		switch o.Kind {
		case '=':
			at = o.To
		case '-':
			if o.From < to && o.To > from {
				return true
			}
			at = o.To
		case '+':
			if at > from && at < to {
				return true
			}
		}
	}
	return false
}

// Flag is a highlight or report quote the change touched.
type Flag struct {
	Highlight *Highlight `json:"highlight,omitempty"`
	// Report and Quote name a report's quote from the changed page.
	Report int64  `json:"report,omitempty"`
	Quote  string `json:"quote"`
	// State is the passage in the new text: stands, moved or gone.
	State string `json:"state"`
}

// Touched lists the highlights of the page at url, and the quotes of
// kept reports drawn from it, that the change from old to new touches:
// found in the old text, a word of theirs changed; or no longer found in
// the new.
func (s *Store) Touched(ctx context.Context, url, old, new string, ops []DiffOp) ([]Flag, error) {
	var out []Flag
	check := func(a api.Anchor) (string, bool) {
		a.Start, a.End = -1, -1
		st, _, _ := a.Verify(new)
		if st == api.PassageGone {
			return st, true
		}
		if ost, s, e := a.Verify(old); ost != api.PassageGone && touches(ops, s, e) {
			return st, true
		}
		return st, false
	}
	hs, err := s.queryHighlights(ctx, `SELECT `+highlightColumns+` FROM highlights h WHERE h.url = ? ORDER BY h.id`, url)
	if err != nil {
		return nil, err
	}
	for i := range hs {
		if st, ok := check(hs[i].Anchor); ok {
			out = append(out, Flag{Highlight: &hs[i], Quote: hs[i].Quote, State: st})
		}
	}
	reports, err := s.List(ctx, KindResearch, 0)
	if err != nil {
		return nil, err
	}
	for _, r := range reports {
		it, err := s.Get(ctx, r.ID)
		if err != nil || !strings.Contains(it.Output, url) {
			continue
		}
		o, err := api.DecodeResearch([]byte(it.Output))
		if err != nil {
			continue
		}
		for _, p := range o.Passages {
			if p.URL != url {
				continue
			}
			if st, ok := check(p.Anchor()); ok {
				out = append(out, Flag{Report: it.ID, Quote: p.Quote, State: st})
			}
		}
	}
	return out, nil
}

// DiffLines renders a word diff for a terminal without colour: deleted
// words in [-…-], inserted ones in {+…+}, kept runs of more than ctx
// words cut to their ends, wrapped at width.
func DiffLines(ops []DiffOp, ctx, width int) []string {
	var b strings.Builder
	for i, o := range ops {
		switch o.Kind {
		case '-':
			b.WriteString("[-" + o.Text + "-] ")
		case '+':
			b.WriteString("{+" + o.Text + "+} ")
		default:
			w := strings.Fields(o.Text)
			if len(w) > 2*ctx {
				var keep []string
				if i > 0 {
					keep = append(keep, w[:ctx]...)
				}
				keep = append(keep, "…")
				if i < len(ops)-1 {
					keep = append(keep, w[len(w)-ctx:]...)
				}
				w = keep
			}
			b.WriteString(strings.Join(w, " ") + " ")
		}
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(b.String()) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// DiffPassages is a word diff as the passages it changed, for a reader:
// each a changed run with up to ctx kept words either side (deleted words
// in [-…-], inserted in {+…+}); a kept run longer than that between two
// changes ends one passage and begins the next. A passage that starts or
// ends mid-text says so with "…".
func DiffPassages(ops []DiffOp, ctx int) []string {
	var out []string
	var cur []string
	for i, o := range ops {
		switch o.Kind {
		case '-':
			cur = append(cur, "[-"+o.Text+"-]")
		case '+':
			cur = append(cur, "{+"+o.Text+"+}")
		default:
			w := strings.Fields(o.Text)
			first, last := i == 0, i == len(ops)-1
			switch {
			case first && last:
				// No change at all.
			case first:
				if len(w) > ctx {
					w = append([]string{"…"}, w[len(w)-ctx:]...)
				}
				cur = append(cur, w...)
			case last:
				if len(w) > ctx {
					w = append(w[:ctx:ctx], "…")
				}
				cur = append(cur, w...)
			case len(w) > 2*ctx:
				cur = append(cur, append(w[:ctx:ctx], "…")...)
				out = append(out, strings.Join(cur, " "))
				cur = append([]string{"…"}, w[len(w)-ctx:]...)
			default:
				cur = append(cur, w...)
			}
		}
	}
	if Changed(ops) && len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}
