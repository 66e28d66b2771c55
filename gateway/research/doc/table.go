package doc

import (
	"strings"
	"unicode"
	"unicode/utf8"

	extast "github.com/yuin/goldmark/extension/ast"

	"hark/gateway/text"
)

// A data table (the index keeps them: a type's range, an option's
// default) is read row by row. Each row is a block of one sentence,
// written as a statement with its header: "smallint — Storage Size: 2
// bytes; Range: -32768 to +32767". Its words are the row's and its
// header's, its context the passage's and the caption's, so a question
// about a row's value meets it as it meets a sentence. Its Key is its
// first cell's terms, what the row is about: research quotes a row only
// for a question that names it (candidate), so that a table's many rows
// never crowd out the prose. The page's kept
// text holds the row as one line of its cells and the header as the
// line above the first row (Block.Row, Block.Head): research records a
// row's quote as those lines, each found at its place, not as the
// statement, whose words the page never writes in that order.
//
// A row is a sentence of its own even when it cannot be quoted, so that
// nothing reads the paragraphs on either side of a table as one (a
// quote carried on past the table would have no place in the kept
// text).

// tableCells is a markdown table's rows, each its cells as marked
// text; the first is the header row, as the extractor writes it.
func tableCells(t *extast.Table, src []byte) [][]string {
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.Join(strings.Fields(inlineText(c, src)), " "))
		}
		rows = append(rows, cells)
	}
	return rows
}

// maxRowWords is the most words a row quoted as a statement holds: a
// longer row is a paragraph laid out in cells, not a fact.
const maxRowWords = 60

// table adds a table's rows. The first row is its header when it reads
// as one (named); else every row is data, and none is quoted, as what
// its cells are is not said.
func (b *docBuilder) table(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	d := b.d
	pi := len(d.Passages) - 1
	// The caption, or the sentence that introduces the table ("Table
	// 8.2. Numeric Types", "The following signal constants are
	// exported:"), says what its rows are.
	var lead []string
	if b.prevKind == 1 && len(d.Sents) > 0 && d.Sents[len(d.Sents)-1].Passage == pi {
		lead = d.Sents[len(d.Sents)-1].Toks
	}
	if lead != nil {
		b.tableLead(rows)
	}
	if keyValueBox(rows) {
		for _, r := range rows {
			b.row(nil, r, lead, true)
		}
		b.lastSent, b.prevKind = -1, 3
		return
	}
	head, named := rows[0], headerRow(rows[0])
	if named {
		rows = rows[1:]
	} else {
		head = nil
	}
	for _, r := range rows {
		b.row(head, r, lead, false)
	}
	b.lastSent, b.prevKind = -1, 3
}

// keyValueBox reports whether a table is a box of named values, each
// row a name ending on ":" and its value (Apache's directive summary:
// "Syntax: | KeepAliveTimeout num[ms]", "Default: | KeepAliveTimeout
// 5"): no header names its columns, as each row names its own value,
// and each row reads as the statement "Default: KeepAliveTimeout 5".
func keyValueBox(rows [][]string) bool {
	if len(rows) < 2 {
		return false
	}
	for _, r := range rows {
		if len(r) != 2 || text.Unmark(r[1]) == "" {
			return false
		}
		k := text.Unmark(r[0])
		if !strings.HasSuffix(k, ":") || len(strings.Fields(k)) > 3 {
			return false
		}
	}
	return true
}

// tableLead hands a short table to the whole sentence before it that
// introduces it on ":" ("The structure of a record-based node is
// determined by its label, which has the following schema:"), as code
// is: the sentence answers with it. Without it, a sentence ending on
// ":" before a table was no sentence at all.
func (b *docBuilder) tableLead(rows [][]string) {
	s := &b.d.Sents[len(b.d.Sents)-1]
	plain := text.Unmark(s.Text)
	if s.Code != "" || s.Asks || s.OK || !strings.HasSuffix(plain, ":") || len(rows) > text.MaxQuotedCode {
		return
	}
	if last := b.d.Blocks[s.Block].Sents; last[len(last)-1] != len(b.d.Sents)-1 {
		return
	}
	if !text.IsAnswerSentence(text.SentenceCase(strings.TrimSuffix(plain, ":")+"."), 5, 90) {
		return
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, keptRow(r))
	}
	s.Code, s.CodeLines, s.OK = strings.Join(lines, "\n"), len(lines), true
}

// row adds one row of a table under head (nil when it has none), or of
// a box of named values (box: keyValueBox).
func (b *docBuilder) row(head, cells []string, lead []string, box bool) {
	kept := keptRow(cells)
	if kept == "" {
		return
	}
	d := b.d
	pi := len(d.Passages) - 1
	bi := len(d.Blocks)
	blk := Block{Kind: TableRow, Passage: pi, List: -1, LeadIn: -1, Desc: -1, Row: kept}
	if head != nil {
		blk.Head = keptRow(head)
	}
	blk.Key = Terms(text.Unmark(cells[0]))
	t := rowStatement(head, cells)
	if box {
		t = cells[0] + " " + cells[1]
		if r, _ := utf8.DecodeLastRuneInString(text.Unmark(t)); !strings.ContainsRune(".!?", r) {
			t += "."
		}
	}
	plain := text.Unmark(t)
	si := len(d.Sents)
	// Its words are its cells'; its header's are what it sits under, as
	// a heading's are: "Description" in every row of a table is no word
	// of each row's own to rank it by.
	rs := Sentence{Text: t, Toks: Terms(kept), Block: bi, Passage: pi, First: true, Dep: -1, AfterList: -1, NWords: len(strings.Fields(plain))}
	filled := 0
	for _, c := range cells {
		if text.Unmark(c) != "" {
			filled++
		}
	}
	rs.OK = (head != nil || box) && !b.links && text.Unmark(cells[0]) != "" && filled >= 2 && rs.NWords <= maxRowWords
	ctx := append([]string(nil), d.Passages[pi].Own...)
	ctx = append(ctx, d.Passages[pi].Context...)
	if head != nil {
		ctx = append(ctx, Terms(blk.Head)...)
	}
	rs.Context = append(ctx, lead...)
	blk.Sents = []int{si}
	d.Blocks = append(d.Blocks, blk)
	d.Sents = append(d.Sents, rs)
	d.Passages[pi].Sents = append(d.Passages[pi].Sents, si)
}

// rowStatement is a row as a statement: its first cell, what the row
// is about, then each other cell under its column's name: "smallint —
// Storage Size: 2 bytes; Range: -32768 to +32767.", a statement. A row of a table
// without a header is its cells.
func rowStatement(head, cells []string) string {
	if head == nil {
		var kept []string
		for _, c := range cells {
			if text.Unmark(c) != "" {
				kept = append(kept, c)
			}
		}
		return strings.Join(kept, " | ")
	}
	var parts []string
	for i, c := range cells[1:] {
		if text.Unmark(c) == "" {
			continue
		}
		if i+1 < len(head) && text.Unmark(head[i+1]) != "" {
			c = text.Unmark(head[i+1]) + ": " + c
		}
		parts = append(parts, c)
	}
	s := strings.Join(parts, "; ")
	if text.Unmark(cells[0]) != "" {
		s = cells[0] + " — " + s
	}
	if r, _ := utf8.DecodeLastRuneInString(text.Unmark(s)); !strings.ContainsRune(".!?", r) {
		s += "." // a statement, read in a summary's running text as one
	}
	return s
}

// keptRow is a row as the page's kept text holds it: its cells that
// hold words, joined by " | ", unmarked.
func keptRow(cells []string) string {
	var kept []string
	for _, c := range cells {
		if c = text.Unmark(c); c != "" {
			kept = append(kept, c)
		}
	}
	return strings.Join(kept, " | ")
}

// headerRow reports whether a table's first row names its columns: two
// or more cells of a few words each, none holding a figure ("Name |
// Storage Size | Range"), not a first row of data ("smallint | 2 bytes").
func headerRow(cells []string) bool {
	n := 0
	for _, c := range cells {
		c = text.Unmark(c)
		if c == "" {
			continue
		}
		if len(strings.Fields(c)) > 5 || strings.IndexFunc(c, unicode.IsDigit) >= 0 {
			return false
		}
		n++
	}
	return n >= 2
}
