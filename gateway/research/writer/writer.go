// Package writer has a language model write a research report's answer
// from the passages research's extractive pass selected, and checks
// every sentence it writes against the sources it cites.
package writer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/extract"
	"hark/gateway/model"
	"hark/gateway/research/citation"
	"hark/gateway/text"
)

// Writer is a language model that writes an answer from numbered
// passages (model.Client).
type Writer interface {
	Name() string
	Write(ctx context.Context, p model.Prompt, onText func(string)) (model.Written, error)
}

// writerInstructions is the system prompt of a written answer.
const writerInstructions = `You answer a researcher's question using only the numbered sources given.
Rules:
- After every sentence, cite the sources that say it, as [n] (or [1][3]); cite only numbers that are given.
- Write nothing that the cited source does not say. Copy code, commands, flags, option names, numbers and names exactly as the source writes them, in backticks for code.
- If the sources do not answer the question, say so in one sentence.
- Answer in short paragraphs or a list, in markdown, without a title and without a list of sources.`

// writtenPrompt numbers each cited source and gives it the passages the
// extractive pass quoted from it, so that the model's [n] is the
// report's source n and each passage keeps its provenance.
func writtenPrompt(question string, sources []api.ResearchSource, passages []api.ResearchPassage) (model.Prompt, []string) {
	texts := make([]string, len(sources))
	for _, p := range passages {
		if p.Source < 1 || p.Source > len(sources) {
			continue
		}
		q := strings.TrimSpace(p.Quote)
		if p.Code {
			q = "```\n" + q + "\n```"
		}
		if texts[p.Source-1] != "" {
			texts[p.Source-1] += "\n"
		}
		texts[p.Source-1] += q
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\nSources:\n", text.OneLine(question))
	for i, s := range sources {
		fmt.Fprintf(&b, "\n[%d] %s\n%s\n", i+1, text.OneLine(s.Title), texts[i])
	}
	return model.Prompt{System: writerInstructions, User: b.String()}, texts
}

// Report is the report wr writes from what the extractive pass
// selected, every sentence checked against the sources it cites; with
// no writer, or the model failing before it wrote anything, the
// extractive report (then with the reason). A stream that stops midway
// keeps its checked sentences and says where it stopped.
func Report(ctx context.Context, wr Writer, question, extractive string, strict bool, sources []api.ResearchSource, passages []api.ResearchPassage) (string, *api.ResearchWritten) {
	if wr == nil || len(sources) == 0 || len(passages) == 0 {
		return extractive, nil
	}
	prompt, texts := writtenPrompt(question, sources, passages)
	engine.Progress(ctx, "%s is writing the answer from %d sources", wr.Name(), len(sources))
	stream := citation.NewStream(texts)
	var checked []citation.Sentence
	report := func(ss []citation.Sentence) {
		for _, s := range ss {
			checked = append(checked, s)
			if !s.Claim {
				continue
			}
			if s.Supported {
				engine.Progress(ctx, "✓ %s", text.TruncateRunes(s.Text, 200))
			} else {
				engine.Progress(ctx, "✗ %s (%s)", text.TruncateRunes(s.Text, 200), s.Reason)
			}
		}
	}
	w, err := wr.Write(ctx, prompt, func(piece string) { report(stream.Write(piece)) })
	if strings.TrimSpace(w.Text) == "" {
		if err == nil {
			err = errors.New("the model wrote nothing")
		}
		return withFallbackNote(extractive, wr.Name(), err), nil
	}
	if err == nil {
		report(stream.Close())
	} else if len(checked) > 0 {
		// Keep the sentences that ended and were checked; the one the
		// stream cut is not a sentence.
		w.Text = w.Text[:checked[len(checked)-1].End]
	} else {
		return withFallbackNote(extractive, wr.Name(), err), nil
	}
	return writtenReport(question, extractive, wr.Name(), w, err, checked, strict)
}

// withFallbackNote is the extractive report, opened with why the model
// did not write it.
func withFallbackNote(extractive, writer string, err error) string {
	title, rest, _ := strings.Cut(extractive, "\n\n")
	reason := err.Error()
	if errors.Is(err, context.Canceled) {
		reason = "the call was stopped"
	}
	return fmt.Sprintf("%s\n\n> The model %s did not write this report (%s), so it is hark's extractive report.\n\n%s",
		title, writer, strings.TrimPrefix(reason, "model: "), rest)
}

// writtenReport is the written answer with every unsupported sentence
// marked (or dropped when strict), the count of supported sentences and
// the model that wrote it, then the extractive report's sources.
func writtenReport(question, extractive, writer string, w model.Written, callErr error, checked []citation.Sentence, strict bool) (string, *api.ResearchWritten) {
	answer := w.Text
	supported, claims := 0, 0
	var unsupported []citation.Sentence
	out := &api.ResearchWritten{Model: writer, Checks: []api.ResearchCheck{}}
	for _, s := range checked {
		if !s.Claim {
			continue
		}
		claims++
		if s.Supported {
			supported++
		} else {
			unsupported = append(unsupported, s)
		}
		out.Checks = append(out.Checks, api.ResearchCheck{Sentence: s.Text, Cites: s.Cites, Supported: s.Supported,
			Reason: s.Reason, Dropped: strict && !s.Supported})
	}
	out.Supported, out.Sentences = supported, claims
	if strict {
		out.Dropped = len(unsupported)
	}
	if callErr != nil {
		out.Stopped = strings.TrimPrefix(callErr.Error(), "model: ")
	}
	// Mark (or drop) from the end, so that earlier offsets hold.
	marks := append([]citation.Sentence(nil), unsupported...)
	sort.Slice(marks, func(i, j int) bool { return marks[i].End > marks[j].End })
	for _, s := range marks {
		if s.End > len(answer) || s.Start > s.End {
			continue
		}
		if strict {
			answer = answer[:s.Start] + strings.TrimLeft(answer[s.End:], " ")
		} else {
			answer = answer[:s.End] + " **⚠ unsupported: " + s.Reason + "**" + answer[s.End:]
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", escapeWithin(text.OneLine(question)))
	b.WriteString(strings.TrimSpace(answer))
	b.WriteString("\n\n")
	if callErr != nil {
		fmt.Fprintf(&b, "> The answer stops here: %s. The sentences above were checked.\n\n", strings.TrimPrefix(callErr.Error(), "model: "))
	}
	fmt.Fprintf(&b, "*Written by %s: %d of %s supported by their passages", writer, supported, plural(claims, "sentence", "sentences"))
	if strict && len(unsupported) > 0 {
		fmt.Fprintf(&b, "; %s dropped (strict)", plural(len(unsupported), "unsupported sentence", "unsupported sentences"))
	}
	b.WriteString(".*\n\n")
	if len(unsupported) > 0 && !strict {
		b.WriteString("## Unsupported sentences\n\n")
		for i, s := range unsupported {
			fmt.Fprintf(&b, "%d. %s — %s\n", i+1, text.TruncateRunes(s.Text, 300), s.Reason)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Method\n\n")
	fmt.Fprintf(&b, "Written by %s from the passages that hark's extractive research chose (listed with the sources), "+
		"each source numbered as below. Each sentence was checked against the sources it cites: its code, flags, names and numbers "+
		"must appear there verbatim and most of its words must be found there.\n\n", writer)
	if i := strings.LastIndex(extractive, "## Sources\n"); i >= 0 {
		b.WriteString(extractive[i:])
	}
	return b.String(), out
}

// escapeWithin is s escaped as markdown text inside a line.
func escapeWithin(s string) string {
	return strings.TrimPrefix(extract.EscapeText("x"+s), "x")
}

// plural is n with the noun's singular or plural.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
