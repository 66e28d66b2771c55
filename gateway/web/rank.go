package web

import (
	"strings"

	"hark/gateway/text"
)

// Lexical relevance is gateway/text's (the index's tokenizer and Porter
// stemmer, BM25, the sentence splitter); what is here is how web cuts a
// page into passages for it.

// tokens and bm25 are the names crawl.go ranks with.
func tokens(s string) []string { return text.Terms(s) }

func bm25(query []string, docs [][]string) []float64 { return text.NewBM25(docs).Score(query) }

// chunks splits markdown or text into passages of roughly size runes at
// paragraph boundaries, never splitting a fenced code block or table.
func chunks(s string, size int) []string {
	var blocks []string
	var cur strings.Builder
	inFence := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
		}
		if t == "" && !inFence {
			if cur.Len() > 0 {
				blocks = append(blocks, strings.TrimSpace(cur.String()))
				cur.Reset()
			}
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	if cur.Len() > 0 {
		blocks = append(blocks, strings.TrimSpace(cur.String()))
	}
	var out []string
	var acc strings.Builder
	for _, bl := range blocks {
		if acc.Len() > 0 && acc.Len()+len(bl) > size {
			out = append(out, acc.String())
			acc.Reset()
		}
		if acc.Len() > 0 {
			acc.WriteString("\n\n")
		}
		acc.WriteString(bl)
		// A heading belongs with what follows it.
		if strings.HasPrefix(bl, "#") && !strings.Contains(bl, "\n") {
			continue
		}
	}
	if acc.Len() > 0 {
		out = append(out, acc.String())
	}
	return out
}

// rankChunks orders passages by BM25 relevance to query, most relevant
// first; passages of equal score keep their order.
func rankChunks(query string, passages []string) ([]string, []float64) {
	idx, scores := text.Rank(query, passages)
	out := make([]string, len(idx))
	outScores := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = passages[j]
		outScores[i] = scores[j]
	}
	return out, outScores
}
