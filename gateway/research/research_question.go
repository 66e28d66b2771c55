package research

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/gateway/research/doc"
	"hark/gateway/text"
)

// How a question is read: the sub-questions a report answers, its
// sections (one per thing compared), the terms an answer must hold, and
// what a question is about.

// subQuestions derives the questions a report answers from the input: the
// input itself, then its clauses (split at question marks, semicolons,
// line breaks, and at "and"/commas between clauses of 2+ content words).
func subQuestions(input string, n int) []string {
	input = strings.TrimSpace(input)
	out := []string{input}
	seen := map[string]bool{strings.Join(text.Terms(input), " "): true}
	add := func(s string) {
		s = strings.Trim(strings.TrimSpace(s), ",.;:")
		key := strings.Join(text.Terms(s), " ")
		if len(text.Terms(s)) < 2 || seen[key] || len(out) >= n {
			return
		}
		seen[key] = true
		out = append(out, s)
	}
	clauses := questionClauses(input)
	for _, c := range clauses {
		parts := splitClauses(c.text)
		if len(parts) > 1 || len(clauses) > 1 || c.context != "" {
			// The statement before a clause is no search of its own ("I
			// reset my git branch" of "I reset my git branch and lost
			// some commits; how do I find where it pointed before?"): the
			// input searched whole holds it, and the question is searched
			// alone, or with the statement when it is too short to search
			// alone ("how do I fix it").
			for _, p := range parts {
				if c.context != "" && len(text.Terms(p)) < 2 {
					p = c.context + " " + strings.TrimSpace(p)
				}
				add(p)
			}
		}
	}
	return out
}

// clause is one of an input's clauses, split at question marks,
// semicolons and line breaks, with the statements before it that ask
// nothing and say what it is about: "I reset my git branch and lost some
// commits" of "I reset my git branch and lost some commits; how do I get
// them back?".
type clause struct{ text, context string }

// questionClauses splits input into its clauses. A clause that asks
// nothing (it opens with no question word and ends in no
// question mark) right before one that asks is that one's context, not
// a clause of its own; a clause that asks nothing before another that
// asks nothing ("Sitemap index files; canonical URLs") is a topic of its
// own.
func questionClauses(input string) []clause {
	type part struct {
		text string
		asks bool
	}
	var parts []part
	start := 0
	for i, r := range input {
		if r != '?' && r != ';' && r != '\n' && r != '？' && r != '；' {
			continue
		}
		if t := input[start:i]; strings.TrimSpace(t) != "" {
			parts = append(parts, part{t, r == '?' || r == '？' || opensQuestion(t)})
		}
		start = i + utf8.RuneLen(r)
	}
	if t := input[start:]; strings.TrimSpace(t) != "" {
		parts = append(parts, part{t, opensQuestion(t)})
	}
	var out []clause
	var ctx []string
	for i, p := range parts {
		if !p.asks && i+1 < len(parts) && parts[i+1].asks {
			ctx = append(ctx, strings.Trim(strings.TrimSpace(p.text), ",.;:"))
			continue
		}
		out = append(out, clause{text: p.text, context: strings.Join(ctx, " ")})
		ctx = nil
	}
	return out
}

// opensQuestion reports whether clause opens with a question word.
func opensQuestion(clause string) bool {
	w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(clause)), " ")
	return questionWords[w]
}

// section is one part of a report: its heading, and the words its
// sentences must answer.
type section struct{ title, query string }

// askWords say what to do with a question, not what it is about: no
// answer has to contain them.
var askWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("compare comparison contrast difference differences differ explain describe versus overview summarize summarise summary list use using mean means") {
		m[text.Stem(w)] = true
	}
	return m
}()

// generalActions are ask words that say nothing of what to do even
// after "how do I": "How do I use massif?" asks about massif.
var generalActions = map[string]bool{text.Stem("use"): true, text.Stem("using"): true}

// answerTerms are the tokens of q an answer is expected to contain.
func answerTerms(q string) []string {
	var out []string
	ex := excluded(q)
	// What a how-to question asks to do is asked, though another
	// question would use the word to say how to answer: "compare" of
	// "How do I compare two secret tokens …", "list" of "How do I list
	// the voices …".
	do := howAction(q)
	for _, t := range doc.Terms(q) {
		if (!askWords[t] || t == do && !generalActions[t]) && !slices.Contains(out, t) && !slices.Contains(ex, t) {
			out = append(out, t)
		}
	}
	return out
}

// excluded is the terms of what a question sets aside: "helgrind" of
// "Which valgrind tool finds data races besides Helgrind?". The answer
// names something else; a sentence about Helgrind is what was not asked.
func excluded(q string) []string {
	var out []string
	for _, m := range setAside().FindAllStringSubmatch(q, -1) {
		out = append(out, doc.Terms(m[1])...)
	}
	return out
}

var setAside = text.LazyRegexp(`(?i)\b(?:besides|other than|apart from|aside from|except(?:\s+for)?|excluding)\s+([^,.;:?!]+)`)

// termsNeeded is how many of terms a sentence must contain to answer: all
// of one or two, half of more, never over three.
func termsNeeded(terms []string) int {
	if len(terms) <= 2 {
		return len(terms)
	}
	return min(3, (len(terms)+1)/2)
}

func matched(terms, doc []string) int {
	n := 0
	for _, t := range terms {
		if slices.Contains(doc, t) {
			n++
		}
	}
	return n
}

// sectionNumber is a leading section number: "4. ", "8.1.2 ".
var sectionNumber = text.LazyRegexp(`^\d+(\.\d+)*\.?\s+`)

// spelledAsSources is name as the sources write it most often ("drd" →
// "DRD", "memcheck" → "Memcheck"), else name with a capital.
func spelledAsSources(name string, texts []string) string {
	if codeName().MatchString(name) {
		return name // "os.freemem()" as code spells it, not "Os.freemem()"
	}
	counts := map[string]int{}
	re, err := regexp.Compile(`(?i)\b` + regexp.QuoteMeta(name) + `\b`)
	if err != nil {
		return text.SentenceCase(name)
	}
	for _, t := range texts {
		for _, m := range re.FindAllString(t, -1) {
			counts[m]++
		}
	}
	best, n := text.SentenceCase(name), 0
	for form, c := range counts {
		if c > n || c == n && form < best {
			best, n = form, c
		}
	}
	return text.SentenceCase(best)
}

// definition is a sentence that says what its subject is.
var definition = text.LazyRegexp(`^\S+ (?:is|are) (?:a|an|the) `)

// whatIs finds what a question asks to have defined: "what is a data
// race", "what are closures in libffi" (the place, "in libffi", is not
// part of the name), "define X", "what does X mean".
var whatIs = text.LazyRegexp(`(?i)^\s*(?:what(?:'s|\s+is|\s+are|\s+was|\s+were)|who\s+(?:is|are|was|were)|define|what\s+(?:does|do))\s+(?:(?:an?|the)\s+)?(.+?)(?:\s+(?:mean|in|on|for|within|under|when|with|inside)\b.*)?\s*[?.!]*\s*$`)

// asksHow matches questions after a way of doing something, which
// sentences saying what a thing is do not answer: "how …", "which
// (linker) flag …" and "is there a (ready-made) way to …", whose answer
// is a command, an option or an example as a how-to's is.
var asksHow = text.LazyRegexp(`(?i)^\s*(?:how\b|what\s+steps\b|in\s+what\s+way\b|(?:which|what)\s+(?:\w+\s+)?(?:flag|option|switch|command)s?\b|is\s+there\s+(?:an?\s+)?(?:[\w-]+\s+)?(?:way|method|function|api|command|option|flag|macro|tool)\b)`)

// subject is what a "what is X" question asks about.
type subject struct {
	defining *regexp.Regexp // sentences that say what it is
	terms    []string       // its words as tokens
	does     bool           // the question asks what it does: "what does cachegrind measure"
}

// definedSubject is what input asks to have defined, or nil when input
// asks no such thing or names something of over five words.
func definedSubject(input string) *subject {
	m := whatIs().FindStringSubmatch(text.OneLine(input))
	if m == nil || comparePattern().MatchString(text.OneLine(input)) {
		return nil
	}
	name := m[1]
	// "what does cachegrind measure", "what does --track-origins do":
	// the last word is what it does, not its name.
	does := doesQuestion().MatchString(input) && !meanQuestion().MatchString(input)
	if does && strings.Contains(" "+strings.ToLower(name)+" ", " about ") {
		return nil // "what does the page say about sitemap indexes": no name
	}
	if does {
		i := strings.LastIndexByte(name, ' ')
		if i < 0 {
			return nil
		}
		name = name[:i]
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 || len(words) > 5 || len(doc.Terms(name)) == 0 {
		return nil
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	re := regexp.MustCompile(`(?i)^(?:(?:an?|the)\s+)?` + strings.Join(words, `[\s-]+`) +
		`(?:e?s)?(?:\s*\([^)]*\))?,?\s+(?:(?:is|are|was|were)(?:\s+also)?\s+(?:an?|the|one)|happens|occurs|means|refers|describes|denotes|represents|consists)\b(\s+not\b)?`)
	return &subject{defining: re, terms: doc.Terms(name), does: does}
}

var (
	doesQuestion = text.LazyRegexp(`(?i)^\s*what\s+(?:does|do)\b`)
	meanQuestion = text.LazyRegexp(`(?i)\bmean\s*[?.!]*\s*$`)
)

// definedBy reports whether sentence says what the subject is ("A data
// race happens, …"), and not what it is not ("Closures are not
// supported …").
func (s *subject) definedBy(sentence string) bool {
	m := s.defining.FindStringSubmatch(sentence)
	return m != nil && m[1] == ""
}

// namedBy reports whether heading names the subject: "2.5 The Closure
// API" names "closure".
func (s *subject) namedBy(heading string) bool {
	return matched(s.terms, doc.Terms(heading)) == len(s.terms)
}

// comparePattern finds what a comparison compares: "compare A and B",
// "A vs B", "the difference between A and B".
var comparePattern = text.LazyRegexp(`(?i)^(?:how (?:does|do) )?(?:(?:compare|contrast)\s+(.+?)\s+(?:and|with|to|versus|vs\.?)|(?:what (?:is|are) )?(?:the )?differences? between\s+(.+?)\s+and)\s+(.+?)[?.!]*$|^(.+?)\s+(?:versus|vs\.?)\s+(.+?)[?.!]*$`)

// comparedPlace splits the last thing compared from where both are: "a
// union in libffi".
var comparedPlace = text.LazyRegexp(`(?i)^(.+?)\s+(?:in|on|for|within|under|inside)\s+(.+)$`)

// sharedNoun reports whether w, after the last thing compared, is the
// noun every thing compared shares: a plural ("events", "modes",
// "options"), as in "the 'exit' and 'close' events".
func sharedNoun(w string) bool {
	w = strings.ToLower(w)
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is") && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// leadingArticle is a leading article, which a section heading leaves out.
var leadingArticle = text.LazyRegexp(`(?i)^(?:an?|the)\s+`)

// questionWords open a clause that is a question of its own.
// subordinating opens a clause that says when or on what condition,
// which is no question of its own.
var subordinating = map[string]bool{"after": true, "before": true, "if": true, "once": true, "since": true, "while": true,
	"unless": true, "although": true, "though": true, "because": true, "given": true, "having": true}

var questionWords = map[string]bool{"how": true, "what": true, "why": true, "when": true, "where": true, "which": true,
	"who": true, "whom": true, "whose": true, "does": true, "do": true, "did": true, "is": true, "are": true, "was": true,
	"were": true, "can": true, "could": true, "should": true, "would": true, "will": true, "has": true, "have": true}

// reportSections are the sections a report on input has after its
// summary. A comparison gets one section per thing compared; questions
// asked one after another (split at ?, ; and line breaks, or at "and" and
// commas before a question word) get one each under their own words;
// anything else gets one Findings section. A fragment of a question
// ("Compare memcheck") never becomes a heading. compared lists the things
// a comparison compares.
func reportSections(input string) (secs []section, compared []string) {
	input = text.OneLine(input)
	// "I'm encrypting data with AES-256-GCM in Node.js. Where do I get
	// the tag …?": a statement before the question says what it is
	// about, and is no question of its own.
	context, input := statedContext(input)
	if m := comparePattern().FindStringSubmatch(input); m != nil {
		a, b := m[1], m[3]
		switch {
		case m[2] != "":
			a = m[2] // "the difference between A and B": A and B are joined by "and" alone
		case a == "":
			a, b = m[4], m[5]
		}
		// "compare memcheck and massif: what does each measure and when
		// should I use which?": the things end where the question about
		// them begins.
		if i := strings.IndexAny(b, ":;,—"); i >= 0 {
			b = strings.TrimSpace(b[:i])
		}
		// "a struct and a union in libffi": both are libffi's; "setting it
		// to 'inherit' when I spawn a child process": the clause says when.
		place := ""
		if m := comparedWhen().FindStringSubmatch(b); m != nil {
			b, place = m[1], " "+m[2]
		}
		if m := comparedPlace().FindStringSubmatch(b); m != nil {
			b, place = m[1], " "+m[2]+place
		}
		// "the 'exit' and 'close' events of a child process": the things
		// are the 'exit' events and the 'close' events, of a child
		// process both.
		noun := ""
		if w := strings.Fields(leadingArticle().ReplaceAllString(b, "")); len(w) > 1 {
			if first := strings.Fields(leadingArticle().ReplaceAllString(strings.TrimSpace(a), "")); len(first) == 1 {
				// The shared noun is the plural after the last thing.
				if sharedNoun(w[1]) {
					b, noun = w[0], " "+w[1]
					if len(w) > 2 {
						place = " " + strings.Join(w[2:], " ") + place
					}
				}
			}
		}
		long := false
		for _, part := range append(strings.Split(a, ","), b) {
			part = leadingArticle().ReplaceAllString(strings.Trim(part, " ,;:"), "")
			if len(answerTerms(part)) == 0 {
				continue
			}
			// A thing described at length ("calling ffi_prep_cif_var with
			// every argument marked as fixed") is no heading: the
			// question is answered whole.
			long = long || len(strings.Fields(part)) > 5
			part += noun
			compared = append(compared, part+place)
			title := text.SentenceCase(part)
			if codeName().MatchString(part) {
				title = part // "os.freemem()" is a name as the code spells it, not "Os.freemem()"
			}
			secs = append(secs, section{title: title, query: part + place + context})
		}
		if len(compared) >= 2 && !long {
			return secs, compared
		}
		secs, compared = nil, nil
	}
	// "I reset my git branch and lost some commits; how do I get them
	// back?": a clause that asks nothing before one that asks is what
	// that one is about, and no heading of its own.
	var clauses []clause
	for _, c := range questionClauses(input) {
		if c.text = strings.Trim(strings.TrimSpace(c.text), ",.;:"); len(answerTerms(c.text)) > 0 {
			clauses = append(clauses, c)
		}
	}
	type asked struct{ text, context string }
	var questions []asked
	for _, cl := range clauses {
		c := cl.text
		parts := splitClauses(c)
		// "After setting up a libffi closure, how do I call it …?" is
		// one question: its first clause says when, and asks nothing.
		w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(parts[0])), " ")
		whole := len(parts) > 1 && !subordinating[w]
		for _, p := range parts[1:] {
			w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(p)), " ")
			whole = whole && questionWords[w]
		}
		if !whole {
			parts = []string{c}
		}
		for _, p := range parts {
			questions = append(questions, asked{p, cl.context})
		}
	}
	if len(questions) < 2 {
		return []section{{title: "Findings", query: strings.TrimSpace(input + context)}}, nil
	}
	for _, q := range questions {
		t := strings.Trim(strings.TrimSpace(q.text), ",.;:")
		title := text.SentenceCase(t)
		if w, _, _ := strings.Cut(strings.ToLower(t), " "); questionWords[w] {
			title += "?"
		}
		query := t + context
		if q.context != "" {
			query += " " + q.context
		}
		secs = append(secs, section{title: title, query: query})
	}
	return secs, nil
}

// statedContext splits from input the sentences before its first
// question that state rather than ask ("I'm encrypting data with
// AES-256-GCM in Node.js."), returned with a leading space for a
// section's query, and the rest. An input that is all statements is
// returned whole.
func statedContext(input string) (string, string) {
	var ctx []string
	rest := input
	for {
		m := statement().FindStringSubmatchIndex(rest)
		if m == nil {
			break
		}
		ctx = append(ctx, strings.TrimSpace(rest[m[2]:m[3]]))
		rest = strings.TrimSpace(rest[m[1]-1:]) // from the next sentence's capital
	}
	if len(ctx) == 0 || !strings.ContainsAny(rest, "?？") {
		return "", input
	}
	return " " + strings.Join(ctx, " "), rest
}

// statement is a sentence that ends in a full stop before more text
// that opens a new sentence: "I'm encrypting data with AES-256-GCM in
// Node.js. Where …".
var statement = text.LazyRegexp(`^([^?]+?[a-z0-9)'"]\.)\s+[A-Z]`)

// comparedWhen splits the last thing compared from a clause that says
// when or on what condition.
var comparedWhen = text.LazyRegexp(`(?i)^(.+?)\s+((?:when|if|while|after|before|once|so that|because)\s+.+)$`)

// answers reports whether doc holds enough of one of the term sets.
func answers(doc []string, sets [][]string) bool {
	for _, terms := range sets {
		if matched(terms, doc) >= termsNeeded(terms) {
			return true
		}
	}
	return false
}

func splitClauses(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		for _, b := range strings.Split(a, " and ") {
			if strings.TrimSpace(b) != "" {
				out = append(out, b)
			}
		}
	}
	// Splitting "salt and pepper" helps no one: keep the clause whole when
	// any part is too short to search on its own.
	for _, p := range out {
		if len(text.Terms(p)) < 2 {
			return []string{s}
		}
	}
	return out
}

// askedAbout is the subject of a question that opens "what does X …",
// "how does X …", "what is X": the thing a later "its" points at.
func askedAbout(input string) string {
	m := askedSubject().FindStringSubmatch(text.OneLine(input))
	if m == nil {
		return ""
	}
	switch strings.ToLower(m[1]) {
	case "i", "you", "we", "they", "it", "one", "people", "this", "that":
		return ""
	}
	return m[1]
}

var askedSubject = text.LazyRegexp(`(?i)^\s*(?:what|how|why|when|where|which)\s+(?:does|do|did|is|are|was|were|can|could|should|will)\s+(?:(?:an?|the)\s+)?([\w.+-]+)`)

// pronoun matches a word that points back at a thing named earlier.
var pronoun = text.LazyRegexp(`(?i)\b(?:it|its|it's|they|them|their|this|that)\b`)

var inputURL = text.LazyRegexp(`https?://[^\s<>"')\]]+`)
