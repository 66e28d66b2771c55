package research

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/api"
	"hark/gateway/extract"
	"hark/gateway/research/doc"
	"hark/gateway/text"
)

// How a chosen quote is written: its sentences as markdown with the
// label it describes, the code it introduces fenced under it, a list's
// items (a procedure's steps with their commands), and each part
// recorded as a passage at its place in the kept page text.

// text is the quote's sentences as markdown: the label first, "…" where
// sentences are left out, a leading section number dropped.
func (c *rcorpus) text(q quote) string {
	d := c.docs[q.doc]
	var b strings.Builder
	if q.label != "" {
		label := strings.TrimSpace(q.label)
		if !strings.ContainsAny(label, " \x01") && strings.ToLower(label) == label {
			label = string(text.CodeOpen) + label + string(text.CodeClose) // a parameter's name: `closure`
		}
		l := renderMarked(label)
		b.WriteString(l)
		if len(q.sents) == 0 {
			return l // a name alone: a section a lead-in introduces
		}
		if last := l[len(l)-1]; last == '.' || last == ':' || last == '?' {
			b.WriteString(" ")
		} else {
			b.WriteString(": ")
		}
	}
	for n, k := range q.sents {
		t := d.Sents[k].Text
		if n == 0 {
			t = withoutSectionNumber(t)
		} else if k != q.sents[n-1]+1 {
			b.WriteString("… ")
		}
		b.WriteString(renderMarked(t))
		if n < len(q.sents)-1 {
			if code := inlineCode(d, q.sents, n); code != "" {
				b.WriteString(" " + renderMarked(string(text.CodeOpen)+code+string(text.CodeClose)))
			}
			b.WriteString(" ")
		}
	}
	return strings.TrimSpace(b.String())
}

// inlineCode is the one-line command that sentence n of a quote (not
// its last) introduces, which the quote holds inline between it and the
// sentence that goes on from it: "You can select a voice … from the
// command line: `flite -voice awb …` And list which voices …". "" when
// it has none.
func inlineCode(d *rdoc, sents []int, n int) string {
	k := sents[n]
	if s := &d.Sents[k]; s.Code != "" && s.CodeLines == 1 && sents[n+1] == k+1 {
		return s.Code
	}
	return ""
}

// code is the code block the quote's last sentence introduces.
func (c *rcorpus) code(q quote) string {
	if len(q.sents) == 0 || q.isList() {
		return ""
	}
	return q.code
}

// write adds q to b as a bullet (or, in a summary, as running text),
// cited as [n].
func (c *rcorpus) write(b *strings.Builder, q quote, n int, bullet bool) {
	c.record(q, n)
	line := fmt.Sprintf("%s [%d]", c.text(q), n)
	code := c.code(q)
	if code != "" {
		line = fmt.Sprintf("%s [%d]", introducingMD(c.text(q)), n)
	}
	switch {
	case bullet:
		b.WriteString("- " + line + "\n")
		for i, it := range q.items {
			mark, indent := "  - ", "    "
			if q.ordered {
				mark = fmt.Sprintf("  %d. ", i+1)
				indent = strings.Repeat(" ", len(mark))
			}
			b.WriteString(mark + c.text(it) + "\n")
			if it.code != "" {
				b.WriteString("\n" + fenced(it.code, indent) + "\n")
			}
		}
		if len(q.after) > 0 {
			// What the page says of the items, under them.
			b.WriteString("\n  " + c.text(quote{doc: q.doc, sents: q.after}) + "\n")
		}
		if code != "" {
			b.WriteString("\n" + fenced(code, "  ") + "\n")
		}
	case code != "":
		b.WriteString(line + "\n\n" + fenced(code, "") + "\n")
	default:
		b.WriteString(line + " ")
	}
}

// introducingMD ends a sentence that introduces its code with a colon
// when it has no closing punctuation: "You can select a voice:".
func introducingMD(s string) string {
	if s == "" || strings.ContainsRune(".!?:", rune(s[len(s)-1])) {
		return s
	}
	return s + ":"
}

// withoutSectionNumber drops a leading section number, which would read
// as a numbered list in a bullet: "4. Helgrind is …", but not "3.8.1 is
// a bug fix release."; and a leading bullet of a plain-text list ("*
// Support for X86/FreeBSD … has been added." of a NEWS file).
func withoutSectionNumber(t string) string {
	for _, b := range []string{"* ", "- ", "• "} {
		if rest, ok := strings.CutPrefix(t, b); ok && rest != "" {
			return rest
		}
	}
	loc := sectionNumber().FindStringIndex(t)
	if loc == nil {
		return t
	}
	if r, _ := utf8.DecodeRuneInString(t[loc[1]:]); unicode.IsUpper(r) || r == text.CodeOpen {
		return t[loc[1]:]
	}
	return t
}

// record keeps the passages of quote q, cited as [n]: each run of
// consecutive sentences, each list item and the code block, with where
// it sits in its page's kept text (start and end -1 when the words are
// not found there).
func (c *rcorpus) record(q quote, n int) {
	d := c.docs[q.doc]
	add := func(quote string, code bool) {
		quote = strings.TrimSpace(quote)
		if quote == "" {
			return
		}
		p := api.ResearchPassage{Source: n, URL: d.url, Quote: quote, Code: code, Start: -1, End: -1}
		if s, e, ok := api.Locate(d.kept, quote, 0); ok {
			p.Start, p.End = s, e
		}
		c.passages = append(c.passages, p)
	}
	runs := func(sents []int) {
		var run []string
		for i, k := range sents {
			if blk := &d.Blocks[d.Sents[k].Block]; blk.Kind == doc.TableRow {
				// A table's row is quoted as a statement with its
				// header, words the page never writes in that order:
				// its passages are the header's line and the row's,
				// as the kept text holds them.
				add(strings.Join(run, " "), false)
				run = run[:0]
				add(blk.Head, false)
				add(blk.Row, false)
				continue
			}
			if i > 0 && k != sents[i-1]+1 {
				add(strings.Join(run, " "), false)
				run = run[:0]
			}
			t := text.Unmark(d.Sents[k].Text)
			if i == 0 {
				t = withoutSectionNumber(t)
			}
			if i < len(sents)-1 {
				if code := inlineCode(d, sents, i); code != "" {
					t += " " + code
				}
			}
			run = append(run, t)
		}
		add(strings.Join(run, " "), false)
	}
	runs(q.sents)
	for _, it := range q.items {
		if len(it.sents) > 0 {
			runs(it.sents)
		}
		if it.code != "" {
			add(it.code, true)
		}
	}
	if len(q.after) > 0 {
		runs(q.after)
	}
	if code := c.code(q); code != "" {
		add(code, true)
	}
}

// renderMarked writes marked text as markdown that reads as the page
// wrote it: the text escaped (so "__main__" or "[x](y)" on a page is not
// markup), inline code as code spans.
func renderMarked(s string) string {
	// Code spans that touch are one: a link dropped from between them
	// ("[`syn::parse_str`](…)`::<Ident>`") left "`syn::parse_str``::<Ident>`",
	// whose "``" opens a longer span and shows the backticks.
	s = strings.ReplaceAll(s, string(text.CodeClose)+string(text.CodeOpen), "")
	var b strings.Builder
	for s != "" {
		i := strings.IndexRune(s, text.CodeOpen)
		if i < 0 {
			b.WriteString(escapeInline(s))
			break
		}
		b.WriteString(escapeInline(s[:i]))
		s = s[i+utf8.RuneLen(text.CodeOpen):]
		j := strings.IndexRune(s, text.CodeClose)
		if j < 0 {
			j = len(s)
		}
		b.WriteString(codeSpan(s[:j]))
		if j < len(s) {
			s = s[j+utf8.RuneLen(text.CodeClose):]
		} else {
			s = ""
		}
	}
	return b.String()
}

// escapeInline is plain text escaped for the middle of a markdown line.
func escapeInline(s string) string {
	if s == "" {
		return s
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	return lead + extract.EscapeText(s[len(lead):])
}

// escapeWithin is plain text escaped for a place no block can start: a
// link's text, a heading's words ("[2. Using …]" keeps its "2.").
func escapeWithin(s string) string {
	return strings.TrimPrefix(extract.EscapeText("x"+s), "x")
}

// codeSpan is code as a markdown code span: a fence of backticks longer
// than any run inside it.
func codeSpan(code string) string {
	fence := "`"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	if strings.HasPrefix(code, "`") || strings.HasSuffix(code, "`") {
		return fence + " " + code + " " + fence
	}
	return fence + code + fence
}
