package api

import (
	"fmt"
	"strings"
)

// Document is a research output as one markdown document, for printing or
// saving: a title (the question, unless the report opens with its own
// top-level heading), an optional italic meta line, a note when the task
// has not completed, the report, and the sources list unless the report
// already has a Sources or References section.
func (o *ResearchOutput) Document(question, meta string) string {
	var b strings.Builder
	content := strings.TrimSpace(o.Content)
	if strings.HasPrefix(content, "# ") {
		// The report's own title stands first; the meta line follows it.
		title, rest, _ := strings.Cut(content, "\n")
		fmt.Fprintf(&b, "%s\n\n", title)
		content = strings.TrimSpace(rest)
		if q := oneLine(question); q != "" && !strings.EqualFold(q, oneLine(strings.TrimPrefix(title, "# "))) {
			fmt.Fprintf(&b, "> %s\n\n", q)
		}
	} else if question = oneLine(question); question != "" {
		fmt.Fprintf(&b, "# %s\n\n", question)
	}
	if meta != "" {
		fmt.Fprintf(&b, "_%s_\n\n", meta)
	}
	if o.Status != "" && o.Status != ResearchCompleted {
		fmt.Fprintf(&b, "_Research %s is %s._\n\n", o.RequestID, o.Status)
	}
	if content != "" {
		b.WriteString(content)
		b.WriteString("\n")
	}
	if len(o.Sources) > 0 && !hasSourcesSection(content) {
		b.WriteString("\n## Sources\n\n")
		for i, s := range o.Sources {
			title := oneLine(s.Title)
			if title == "" {
				title = s.URL
			}
			fmt.Fprintf(&b, "%d. [%s](%s)\n", i+1, title, s.URL)
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// hasSourcesSection reports whether a markdown report has a heading named
// Sources or References (any level, ATX or setext).
func hasSourcesSection(md string) bool {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		name := ""
		switch {
		case strings.HasPrefix(l, "#"):
			name = strings.Trim(strings.TrimLeft(l, "#"), " #")
		case i+1 < len(lines) && l != "" && isSetextUnderline(lines[i+1]):
			name = l
		}
		switch strings.ToLower(strings.TrimSuffix(name, ":")) {
		case "sources", "references":
			return true
		}
	}
	return false
}

func isSetextUnderline(l string) bool {
	l = strings.TrimSpace(l)
	return l != "" && (strings.Trim(l, "=") == "" || strings.Trim(l, "-") == "")
}
