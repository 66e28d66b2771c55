package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/text"
)

// Search answers vendor_search from the local FTS5 index. See docs/web.md
// for what every input does; in short:
//
//   - candidates come from FTS5 (porter stemming) ranked by bm25 with the
//     title weighted 5, the URL 2 and the body 1;
//   - rank = 0.4 × coverage (share of the query's terms the page holds)
//   - 0.25 × bm25 relative to the best candidate + 0.2 × title coverage
//   - 0.15 × coverage of the best-matching heading, times the boosts
//     (topic 2, country 1.25, news recency up to 1.3); the score is the
//     square of the rank over the best result's, times the best's
//     coverage;
//   - basic re-ranks 4× max_results candidates and returns FTS5 snippets;
//     advanced re-ranks the same and returns the best chunks of each page;
//     fast ranks max_results×2 candidates on title and snippet only;
//     ultra-fast takes FTS5's order and the page description.
func (e *Engine) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	start := time.Now()
	out, err := e.search(ctx, in)
	if err != nil {
		return nil, err
	}
	out.ResponseTime = elapsed(start)
	return out, nil
}

type candidate struct {
	id                     int64
	url, host, title, desc string
	body, images, favicon  string
	snippet, topic         string
	headings               string // one a line
	leadPending            bool   // body is left out until the page is wanted (store.columns' cutStored)
	terms                  string // the body's terms as stored (passages.go); "" for a page indexed before them
	headingTerms           string // the headings' terms as stored, when terms is
	published, fetched     int64
	raw                    float64 // -bm25, larger is better
	cover                  float64 // share of the query's terms it holds
	score, rankKey         float64
	content                string
}

func (e *Engine) search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	return e.searchIndex(ctx, in, false)
}

// searchIndex searches the index. ranked leaves each result's content
// as its headings (one a line) rather than quoting the page: research
// reads the pages it chooses whole, and asks only which ones.
func (e *Engine) searchIndex(ctx context.Context, in api.SearchInput, ranked bool) (*api.SearchOutput, error) {
	if in.MaxResults <= 0 {
		in.MaxResults = 5
	}
	depth := in.SearchDepth
	if depth == "" {
		depth = "basic"
	}
	topic := in.Topic
	if in.Country != "" {
		topic = "general"
	}
	out := &api.SearchOutput{Query: in.Query, Results: []api.SearchResult{}}

	m, terms := newMatch(in.Query, in.ExactMatch)
	if m == nil {
		return out, nil
	}
	lo, hi, err := timeWindow(in, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	f := &filters{lo: lo, hi: hi}
	for _, d := range api.SplitList(in.IncludeDomains) {
		f.include = append(f.include, normDomain(d))
	}
	for _, d := range api.SplitList(in.ExcludeDomains) {
		f.exclude = append(f.exclude, normDomain(d))
	}
	pool := in.MaxResults * 4
	switch depth {
	case "fast":
		pool = in.MaxResults * 2
	case "ultra-fast":
		pool = in.MaxResults
	}
	if in.ExactMatch || topic != "general" || in.Country != "" {
		pool = max(pool, 50) // post-filters and boosts need room
	}
	bodyRunes := 0
	if (depth == "ultra-fast" || depth == "fast") && !in.IncludeRawContent && !in.IncludeAnswer && !in.ExactMatch {
		bodyRunes = 600
	}
	// Phase 1 ranks ids only; phase 2 reads the candidates' columns and,
	// for fast, snippets (basic asks for one on its own when no sentence
	// holds a query word: pageStore.snippet).
	// A release number names one release: "3.19" is the page that says
	// "3.19", not every page with a 3 and a 19 on it.
	var versions []*regexp.Regexp
	for _, v := range text.VersionNumber().FindAllString(in.Query, -1) {
		versions = append(versions, regexp.MustCompile(`(?:^|[^\d.])`+regexp.QuoteMeta(v)+`(?:$|[^\d])`))
	}
	// A basic search of pages whose terms and sentences are stored reads
	// no more of their bodies than the key that tells one page at two
	// URLs (300 runes, and one more to say it goes on), unless an option
	// reads the whole, and that only of the pages it keeps. So does
	// research's (ranked): it quotes no page, and its coverage reads the
	// stored terms at either depth.
	cutStored := 0
	if (depth == "basic" || ranked && depth == "advanced") && !in.IncludeRawContent && !in.IncludeAnswer && !in.IncludeImages && !in.ExactMatch && len(versions) == 0 {
		cutStored = 301
	}
	cands, err := e.store.ranked(ctx, m, f, pool)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	// With vectors for the configured embedding model, the pages nearest
	// the query join the candidates (hybrid.go); nil leaves it lexical.
	near := e.hybridFor(ctx, in.Query, pool)
	cands = near.join(cands)
	byID := make(map[int64]*candidate, len(cands))
	for _, c := range cands {
		byID[c.id] = c
	}
	if err := e.store.columns(ctx, m, byID, bodyRunes, cutStored, depth == "fast"); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	cands = near.admit(cands, f)
	if in.ExactMatch {
		phrase := normPhrase(in.Query)
		kept := cands[:0]
		for _, c := range cands {
			if strings.Contains(normPhrase(c.title+" "+c.body), phrase) {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	if len(cands) == 0 {
		if in.IncludeAnswer {
			out.Answer = ""
		}
		return out, nil
	}

	best := 0.0
	for _, c := range cands {
		best = math.Max(best, c.raw)
	}
	tld := countryTLD(in.Country)
	now := time.Now().Unix()
	// Which query words each candidate holds, and how rare each is
	// among them: the page that lacks the one word the others share
	// ("libffi") is about something else.
	present := make([]map[string]bool, len(cands))
	titles := make([]map[string]bool, len(cands))
	for i, c := range cands {
		var covText string
		switch depth {
		case "basic", "advanced":
			if c.terms != "" { // the body's terms were stored when it was indexed
				present[i] = text.Present(terms, c.title+" "+c.url)
				presentIn(terms, c.terms, present[i])
				titles[i] = text.Present(terms, c.title)
				continue
			}
			covText = c.title + " " + c.url + " " + c.body
		case "fast":
			covText = c.title + " " + c.url + " " + c.snippet
		default:
			covText = c.title + " " + c.url + " " + c.desc
		}
		present[i] = text.Present(terms, covText)
		titles[i] = text.Present(terms, c.title)
	}
	bodyWeight, titleWeight := termWeights(terms, present), termWeights(terms, titles)
	for i, c := range cands {
		rel := 0.0
		if best > 0 {
			rel = c.raw / best
		}
		// What a page is about shows in its title and headings: a page
		// titled "Memcheck" with a section "Memory leak detection" is
		// about "memcheck leak" as a release-notes page that names both
		// is not.
		c.cover = weightedCoverage(nil, terms, present[i])
		s := 0.4*weightedCoverage(bodyWeight, terms, present[i]) + 0.25*rel + 0.2*weightedCoverage(titleWeight, terms, titles[i]) + 0.15*c.headingCoverage(terms)
		boost := 1.0
		if topic != "general" && c.topic == topic {
			boost *= 2
		}
		if topic == "news" && c.topic == "news" {
			d := c.published
			if d == 0 {
				d = c.fetched
			}
			age := float64(now-d) / 86400
			boost *= 1 + 0.3*math.Exp(-math.Max(age, 0)/30)
		}
		for _, v := range versions {
			if v.MatchString(c.title + " " + c.body) {
				boost *= 1.5
			}
		}
		if tld != "" && (strings.HasSuffix(c.host, "."+tld)) {
			boost *= 1.25
		}
		c.rankKey = s * boost
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rankKey > cands[j].rankKey })
	near.fuse(cands)
	// The score is the square of the result's rank over the best
	// result's, times the share of the query's words the best result
	// holds: the best reads 1.0 when it holds them all, one 80% as good
	// 0.64. Ranks weigh where the words are (title, headings) as well as
	// how often, and the square spreads the top of the scale, so good
	// matches no longer all read 0.97 to 1.00 and fill every score bar.
	for _, c := range cands {
		c.score = 0
		if cands[0].rankKey > 0 {
			r := c.rankKey / cands[0].rankKey
			c.score = math.Round(r*r*cands[0].cover*10000) / 10000
		}
	}
	// One page reachable at two URLs ("/" and "/index.html", "fs.html"
	// and "fs.md") is one result: the better ranked.
	seenPage := map[string]bool{}
	uniq := cands[:0]
	for i, c := range cands {
		if len(uniq) == in.MaxResults {
			break // the rest are cut
		}
		if c.leadPending {
			// The keys of as many pages as are still wanted, read
			// together.
			if err := e.readLeads(ctx, cands[i:min(len(cands), i+in.MaxResults-len(uniq))], cutStored); err != nil {
				return nil, fmt.Errorf("search index: %w", err)
			}
		}
		key := c.title + "\x00" + text.TruncateRunes(c.body, 300)
		if c.body == "" {
			key = c.url
		}
		page := samePage(c.url)
		if !seenPage[key] && !seenPage[page] {
			seenPage[key], seenPage[page] = true, true
			uniq = append(uniq, c)
		}
	}
	cands = uniq
	if len(cands) > in.MaxResults {
		cands = cands[:in.MaxResults]
	}
	// The quoted results' sentences, stored when they were indexed.
	var stored map[int64]string
	if depth == "basic" && !ranked {
		ids := make([]int64, len(cands))
		for i, c := range cands {
			ids[i] = c.id
		}
		if stored, err = e.store.passages(ctx, ids); err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
	}
	for _, c := range cands {
		switch {
		case ranked:
			c.content = c.headings
		case depth == "advanced":
			c.content = bestChunks(in.Query, c.body, 3)
		case depth == "ultra-fast":
			c.content = c.desc
			if c.content == "" {
				c.content = text.TruncateRunes(strings.Join(strings.Fields(c.body), " "), 300)
			}
		case depth == "basic":
			var ok bool
			if c.content, ok = bestStoredSentences(in.Query, stored[c.id], 300); !ok {
				c.content = bestSentences(in.Query, c.body, 300)
			}
			if c.content == "" {
				if rest, ok := withoutTitlePage(c.title, c.body); ok {
					// FTS5's snippet, of what follows the title page.
					c.content = withoutFooter(strings.Join(strings.Fields(ftsSnippet(rest, m.phrases, "…", snippetTokens)), " "))
				} else {
					c.content = withoutFooter(strings.Join(strings.Fields(e.store.snippet(ctx, m, c.id)), " "))
				}
			}
		default:
			c.content = strings.Join(strings.Fields(c.snippet), " ")
		}
		if c.content == "" && !ranked {
			c.content = text.TruncateRunes(c.desc, 300)
		}
		r := api.SearchResult{Title: c.title, URL: c.url, Content: c.content, Score: c.score}
		if r.Title == "" {
			r.Title = c.url
		}
		if in.IncludeRawContent {
			r.RawContent = c.body
		}
		if c.published > 0 {
			r.PublishedDate = time.Unix(c.published, 0).UTC().Format(time.RFC3339)
		}
		if in.IncludeFavicon {
			r.Favicon = c.favicon
		}
		out.Results = append(out.Results, r)
	}
	if in.IncludeAnswer {
		out.Answer = extractiveAnswer(in.Query, cands)
	}
	if in.IncludeImages {
		out.Images = rankImages(in.Query, cands, in.IncludeImageDescriptions)
	}
	return out, nil
}

// readLeads reads the first n runes of the bodies cands left out
// (leadPending), as their bodies.
func (e *Engine) readLeads(ctx context.Context, cands []*candidate, n int) error {
	var ids []int64
	for _, c := range cands {
		if c.leadPending {
			ids = append(ids, c.id)
		}
	}
	leads, err := e.store.leads(ctx, ids, n)
	if err != nil {
		return err
	}
	for _, c := range cands {
		if c.leadPending {
			c.body, c.leadPending = leads[c.id], false
		}
	}
	return nil
}

// ftsQuery builds an FTS5 MATCH expression: the query's words OR'ed (stop
// words dropped unless nothing else is left), or one phrase for exact_match.
// It also returns the query's terms as rank.go tokenizes them.
func ftsQuery(q string, exact bool) (string, []string) {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return "", nil
	}
	terms := text.Terms(q)
	if exact {
		return `"` + strings.Join(words, " ") + `"`, terms
	}
	var keep []string
	seen := map[string]bool{}
	for _, w := range words {
		if text.StopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		keep = append(keep, `"`+w+`"`)
	}
	if len(keep) == 0 {
		for _, w := range words {
			keep = append(keep, `"`+w+`"`)
		}
		terms = words
	}
	return strings.Join(keep, " OR "), terms
}

func normPhrase(s string) string {
	return " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ") + " "
}

func normDomain(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	if strings.Contains(d, "://") {
		d = hostOf(d)
	}
	d = strings.TrimPrefix(strings.Trim(d, "./"), "www.")
	return d
}

// timeWindow turns time_range, start_date and end_date into a half-open
// window [lo, hi) of Unix seconds; 0 means unbounded. Both dates are
// inclusive days (UTC).
func timeWindow(in api.SearchInput, now time.Time) (lo, hi int64, err error) {
	switch in.TimeRange {
	case "day", "d":
		lo = now.AddDate(0, 0, -1).Unix()
	case "week", "w":
		lo = now.AddDate(0, 0, -7).Unix()
	case "month", "m":
		lo = now.AddDate(0, -1, 0).Unix()
	case "year", "y":
		lo = now.AddDate(-1, 0, 0).Unix()
	}
	if in.StartDate != "" {
		t, perr := time.Parse("2006-01-02", in.StartDate)
		if perr != nil {
			return 0, 0, &engine.InputError{Field: "start_date", Rule: "must be a date as YYYY-MM-DD"}
		}
		lo = max(lo, t.Unix())
	}
	if in.EndDate != "" {
		t, perr := time.Parse("2006-01-02", in.EndDate)
		if perr != nil {
			return 0, 0, &engine.InputError{Field: "end_date", Rule: "must be a date as YYYY-MM-DD"}
		}
		hi = t.AddDate(0, 0, 1).Unix()
		if in.StartDate != "" && in.EndDate < in.StartDate {
			return 0, 0, &engine.InputError{Field: "end_date", Rule: "must not be before start_date"}
		}
	}
	return lo, hi, nil
}

// termWeights weighs each query term by how few candidates hold it (in
// their text, or their titles): a word every title shares ("libffi"
// across libffi's manual) says nothing about which page is "Structures".
func termWeights(terms []string, present []map[string]bool) map[string]float64 {
	w := map[string]float64{}
	n := float64(len(present))
	for _, t := range terms {
		df := 0
		for _, p := range present {
			if p[t] {
				df++
			}
		}
		w[t] = math.Log(1 + (n+1)/(float64(df)+1))
	}
	return w
}

// weightedCoverage is the weighted share of the distinct terms that
// have holds; nil weights count each term once.
func weightedCoverage(weights map[string]float64, terms []string, have map[string]bool) float64 {
	var got, all float64
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		w := 1.0
		if weights != nil {
			w = weights[t]
		}
		all += w
		if have[t] {
			got += w
		}
	}
	if all == 0 {
		return 0
	}
	return got / all
}

// headingCoverage is headingCoverage of the candidate's headings, from
// their stored terms when the page has them.
func (c *candidate) headingCoverage(terms []string) float64 {
	if c.terms != "" {
		return storedHeadingCoverage(terms, c.headingTerms)
	}
	return headingCoverage(terms, c.headings)
}

// headingCoverage is the largest share of terms that one of headings
// (one a line) holds, reading the words inside camel-case API names too.
func headingCoverage(terms []string, headings string) float64 {
	best := 0.0
	for _, h := range strings.Split(headings, "\n") {
		if h != "" {
			best = math.Max(best, text.Coverage(terms, append(text.Terms(h), text.NameParts(h)...)))
		}
	}
	return best
}

// bestChunks returns the n passages of body most relevant to query, in
// the order they appear on the page, joined by " … ".
func bestChunks(query, body string, n int) string {
	ps := chunks(body, 400)
	if len(ps) == 0 {
		return ""
	}
	idx, _ := text.Rank(query, ps)
	if len(idx) > n {
		idx = idx[:n]
	}
	sort.Ints(idx)
	var parts []string
	for _, i := range idx {
		parts = append(parts, strings.Join(strings.Fields(ps[i]), " "))
	}
	return strings.Join(parts, " … ")
}

// bestSentences is a search snippet of about max characters: the
// sentence of body most relevant to query by BM25 over the page's own
// sentences (so the word the page uses once outweighs the one on every
// line), each read with the heading it sits under, and those after it in
// its section while they fit. Headings are not sentences: a snippet never
// reads "Editable installs You can install …". "…" marks text left out
// before or after. It is "" when no sentence holds a query word.
func bestSentences(query, body string, max int) string {
	ps := text.SentencesUnder(body)
	if len(ps) == 0 {
		return ""
	}
	q := text.Terms(query)
	docs := make([][]string, len(ps))
	for i, p := range ps {
		docs[i] = text.Terms(p.Text)
	}
	// The heading raises a sentence that answers the query itself; it
	// does not make one that holds other words of the query outrank it.
	scores := bm25(q, docs)
	best := 0
	for i := range scores {
		if ps[i].Heading != "" {
			scores[i] *= 1 + 0.5*text.Coverage(q, text.Terms(ps[i].Heading))
		}
		// A snippet comes from the page's body: not its generator's
		// footer ("This document was generated on … using texi2any."),
		// and a menu or contents line ("Primitive Types Structures Size
		// and Alignment …") only when no sentence holds the words.
		// The footer ends the text it runs into ("9 Porting to new
		// platforms … This document was generated …").
		ps[i].Text = withoutFooter(ps[i].Text)
		switch {
		case ps[i].Text == "":
			scores[i] = 0
		case !text.IsAnswerSentence(ps[i].Text, 4, 80):
			scores[i] *= 0.3
		}
		if scores[i] > scores[best] {
			best = i
		}
	}
	if scores[best] <= 0 {
		return ""
	}
	ss := make([]snippetSentence, len(ps))
	for i, p := range ps {
		ss[i] = snippetSentence{Text: p.Text, Lead: p.Lead, BeforeCode: p.BeforeCode}
	}
	return assembleSnippet(ss, best, max)
}

// snippetSentence is a sentence as a snippet quotes it: its text (the
// footer cut off), whether it opens a section, whether code follows it.
type snippetSentence struct {
	Text             string
	Lead, BeforeCode bool
}

// assembleSnippet is the snippet that opens at sentence best: it and
// those after it in its section while they fit in about max characters.
func assembleSnippet(ps []snippetSentence, best, max int) string {
	var b strings.Builder
	if best > 0 {
		b.WriteString("…")
	}
	i := best
	for ; i < len(ps); i++ {
		s := text.OneLine(ps[i].Text)
		// A snippet is one run of prose: it ends at a heading or at a
		// code block, never joining the sentences on either side.
		if i > best && (b.Len()+1+len(s) > max || ps[i].Lead || ps[i-1].BeforeCode) || s == "" {
			break
		}
		if i > best {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	out := b.String()
	if r := []rune(out); len(r) > max+max/2 { // one long sentence: cut at a word
		out = string(r[:max])
		if k := strings.LastIndexByte(out, ' '); k > len(out)/2 {
			out = out[:k]
		}
		return out + " …"
	}
	if i < len(ps) {
		out += " …"
	}
	return out
}

// withoutTitlePage is body without the title page it opens with, and
// true when it had one: a title (the page's, or a line that is no
// sentence) followed by colophon lines, which say who made the document
// and when but not what it says: a copyright or generator line
// (pageFooter), a dated version ("Release 3.19.0 11 Apr 2022") or a
// contact address alone ("Email: valgrind@valgrind.org"). A manual's
// front page (DocBook's titlepage, texinfo's title page) is shaped so,
// and a snippet of it quotes the colophon. The title goes too, as the
// result shows it already. Body without anything after its title page is
// not cut.
func withoutTitlePage(title, body string) (string, bool) {
	rest, cut := body, false
	for i := 0; rest != ""; i++ {
		line, after, _ := strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		switch {
		case t == "":
		case i == 0 && (t == strings.TrimSpace(title) || !text.IsAnswerSentence(t, 1, 30)):
			// The title.
		case isColophon(t):
			cut = true
		default:
			if cut {
				return rest, true
			}
			return body, false
		}
		rest = after
	}
	return body, false
}

// datedVersion matches a line that holds a version number and a year.
var datedVersion = text.LazyRegexp(`\b\d+\.\d+(?:\.\d+)*\b.*\b(?:1[89]|20)\d\d\b|\b(?:1[89]|20)\d\d\b.*\b\d+\.\d+(?:\.\d+)*\b`)

// contactAddress matches an e-mail address.
var contactAddress = text.LazyRegexp(`[^\s@<>()]+@[^\s@<>()]+\.[A-Za-z]{2,}`)

// isColophon reports a line of a title page's colophon (see
// withoutTitlePage): never a sentence.
func isColophon(line string) bool {
	n := len(strings.Fields(line))
	switch {
	case text.IsAnswerSentence(line, 1, 1000) && !strings.ContainsAny(line, "©@"):
		return false
	case withoutFooter(line) == "":
		return true
	case n <= 8 && datedVersion().MatchString(line):
		return true
	case n <= 4 && contactAddress().MatchString(line):
		return true
	}
	return false
}

// pageFooter matches the lines a site generator or template puts under
// every page.
var pageFooter = text.LazyRegexp(`(?i)\bthis (?:document|page|file|manual|site|documentation) (?:was|is|has been) (?:generated|created|built|produced|last (?:updated|modified))\b|^(?:(?:page |document )?generated (?:on|by|with|using)\b|last (?:updated|modified|generated)(?: on)?\b|built with\b|powered by\b|copyright\b|©|all rights reserved\b)`)

// withoutFooter is s up to a page footer it runs into.
func withoutFooter(s string) string {
	if loc := pageFooter().FindStringIndex(s); loc != nil {
		return strings.TrimSpace(s[:loc[0]])
	}
	return s
}

// extractiveAnswer picks the two sentences of the top three results that
// BM25 finds most relevant to the query.
func extractiveAnswer(query string, cands []*candidate) string {
	var sents []string
	for i, c := range cands {
		if i == 3 {
			break
		}
		body := c.body
		if body == "" {
			body = c.content
		}
		heads := pageHeadings(c)
		for _, s := range text.Sentences(body) {
			// An ordered list's item keeps its number in the text; an
			// answer opening "16. Limit the new UNION ALL optimization"
			// or with "4." between its two sentences reads as a piece.
			s = strings.TrimPrefix(s, listNumber().FindString(s))
			s = withoutLeadingAside(s)
			if text.IsAnswerSentence(s, 4, 80) && !heads[headingKey(s)] {
				sents = append(sents, s)
			}
		}
	}
	if len(sents) == 0 {
		return ""
	}
	ranked, scores := rankChunks(query, sents)
	var picked []string
	var pickedTerms [][]string
	for i, s := range ranked {
		if len(picked) == 2 || scores[i] <= 0 {
			break
		}
		// Two manuals often say the same thing in nearly the same words
		// ("Multiple suppression files are allowed." and "Multiple
		// suppressions files are allowed."): the second adds nothing.
		ts := text.TermSet(s)
		if slices.ContainsFunc(pickedTerms, func(p []string) bool { return sameTerms(p, ts) }) {
			continue
		}
		picked, pickedTerms = append(picked, s), append(pickedTerms, ts)
	}
	return strings.Join(picked, " ")
}

// withoutLeadingAside is s without an aside in parentheses that opens it
// and ends in a full stop ("(See also Section 21.6.) The default value
// is …"), which belongs to the sentence before: an answer opening with
// it read as a piece of another.
func withoutLeadingAside(s string) string {
	if !strings.HasPrefix(s, "(") {
		return s
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				aside, rest := s[:i], strings.TrimSpace(s[i+1:])
				if !strings.HasSuffix(aside, ".") || rest == "" || !text.StartsSentence(rest) {
					return s
				}
				return rest
			}
		}
	}
	return s
}

// listNumber matches an ordered list item's number and the blank after
// it ("16. ", "b) "); not a section's ("3.14 ").
var listNumber = text.LazyRegexp(`^(?:\d{1,3}|[a-z])[.)]\s+`)

// pageHeadings are the keys (headingKey) of a result's title and
// headings. A heading that ends in a question mark or an exclamation
// reads as a sentence ("1.3 Is there a GUI authoring environment for
// Docutils?", an FAQ's; Rust by Example's "Unpacking options with ?"),
// and an answer that opened with one opened with a heading, not with
// what the page says under it.
func pageHeadings(c *candidate) map[string]bool {
	heads := map[string]bool{}
	for _, h := range append(strings.Split(c.headings, "\n"), c.title) {
		if k := headingKey(h); k != "" {
			heads[k] = true
		}
	}
	return heads
}

// headingKey is s as markdownHeadings stores a heading, spaces folded:
// a sentence and a heading of the same words have one key.
func headingKey(s string) string {
	s = strings.NewReplacer("\\", "", "*", "", "`", "", "_", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// sameTerms reports two sentences whose terms overlap by at least
// four-fifths of the terms either holds (Jaccard ≥ 0.8).
func sameTerms(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	shared := 0
	for _, t := range a {
		if slices.Contains(b, t) {
			shared++
		}
	}
	return float64(shared) >= 0.8*float64(len(a)+len(b)-shared)
}

// rankImages lists the images of the results, those whose description
// shares words with the query first, at most 10.
func rankImages(query string, cands []*candidate, withDesc bool) []api.SearchImage {
	q := text.Terms(query)
	type scored struct {
		img   storedImage
		score float64
		order int
	}
	var all []scored
	seen := map[string]bool{}
	for _, c := range cands {
		var imgs []storedImage
		_ = json.Unmarshal([]byte(c.images), &imgs)
		for _, im := range imgs {
			if seen[im.URL] {
				continue
			}
			seen[im.URL] = true
			all = append(all, scored{im, text.Coverage(q, text.Terms(im.Description)), len(all)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	out := []api.SearchImage{}
	for i, s := range all {
		if i == 10 {
			break
		}
		im := api.SearchImage{URL: s.img.URL}
		if withDesc {
			im.Description = s.img.Description
		}
		out = append(out, im)
	}
	return out
}

// countryTLD maps a full English country name to its country-code
// top-level domain.
func countryTLD(country string) string {
	return countryTLDs[strings.ToLower(strings.TrimSpace(country))]
}

var countryTLDs = map[string]string{
	"afghanistan": "af", "albania": "al", "algeria": "dz", "argentina": "ar", "armenia": "am", "australia": "au",
	"austria": "at", "azerbaijan": "az", "bahrain": "bh", "bangladesh": "bd", "belarus": "by", "belgium": "be",
	"bolivia": "bo", "bosnia and herzegovina": "ba", "brazil": "br", "bulgaria": "bg", "cambodia": "kh",
	"cameroon": "cm", "canada": "ca", "chile": "cl", "china": "cn", "colombia": "co", "costa rica": "cr",
	"croatia": "hr", "cuba": "cu", "cyprus": "cy", "czech republic": "cz", "czechia": "cz", "denmark": "dk",
	"dominican republic": "do", "ecuador": "ec", "egypt": "eg", "el salvador": "sv", "estonia": "ee",
	"ethiopia": "et", "finland": "fi", "france": "fr", "georgia": "ge", "germany": "de", "ghana": "gh",
	"greece": "gr", "guatemala": "gt", "honduras": "hn", "hong kong": "hk", "hungary": "hu", "iceland": "is",
	"india": "in", "indonesia": "id", "iran": "ir", "iraq": "iq", "ireland": "ie", "israel": "il", "italy": "it",
	"jamaica": "jm", "japan": "jp", "jordan": "jo", "kazakhstan": "kz", "kenya": "ke", "kuwait": "kw",
	"latvia": "lv", "lebanon": "lb", "lithuania": "lt", "luxembourg": "lu", "malaysia": "my", "malta": "mt",
	"mexico": "mx", "moldova": "md", "mongolia": "mn", "montenegro": "me", "morocco": "ma", "myanmar": "mm",
	"nepal": "np", "netherlands": "nl", "new zealand": "nz", "nicaragua": "ni", "nigeria": "ng",
	"north macedonia": "mk", "norway": "no", "oman": "om", "pakistan": "pk", "panama": "pa", "paraguay": "py",
	"peru": "pe", "philippines": "ph", "poland": "pl", "portugal": "pt", "qatar": "qa", "romania": "ro",
	"russia": "ru", "saudi arabia": "sa", "senegal": "sn", "serbia": "rs", "singapore": "sg", "slovakia": "sk",
	"slovenia": "si", "south africa": "za", "south korea": "kr", "korea": "kr", "spain": "es", "sri lanka": "lk",
	"sudan": "sd", "sweden": "se", "switzerland": "ch", "syria": "sy", "taiwan": "tw", "tanzania": "tz",
	"thailand": "th", "tunisia": "tn", "turkey": "tr", "türkiye": "tr", "uganda": "ug", "ukraine": "ua",
	"united arab emirates": "ae", "united kingdom": "uk", "uk": "uk", "united states": "us", "usa": "us",
	"uruguay": "uy", "uzbekistan": "uz", "venezuela": "ve", "vietnam": "vn", "yemen": "ye", "zambia": "zm",
	"zimbabwe": "zw",
	"andorra":  "ad", "angola": "ao", "bahamas": "bs", "barbados": "bb", "belize": "bz", "benin": "bj",
	"bhutan": "bt", "botswana": "bw", "brunei": "bn", "burkina faso": "bf", "burundi": "bi", "chad": "td",
	"congo": "cg", "côte d'ivoire": "ci", "democratic republic of the congo": "cd", "djibouti": "dj", "eritrea": "er", "fiji": "fj",
	"gabon": "ga", "gambia": "gm", "great britain": "uk", "guinea": "gn", "guyana": "gy", "haiti": "ht",
	"ivory coast": "ci", "kyrgyzstan": "kg", "laos": "la", "lesotho": "ls", "liberia": "lr", "libya": "ly",
	"liechtenstein": "li", "madagascar": "mg", "malawi": "mw", "maldives": "mv", "mali": "ml", "mauritania": "mr",
	"mauritius": "mu", "monaco": "mc", "mozambique": "mz", "namibia": "na", "niger": "ne", "north korea": "kp",
	"palestine": "ps", "papua new guinea": "pg", "puerto rico": "pr", "russian federation": "ru", "rwanda": "rw", "san marino": "sm",
	"sierra leone": "sl", "somalia": "so", "south sudan": "ss", "suriname": "sr", "tajikistan": "tj", "the netherlands": "nl",
	"togo": "tg", "trinidad and tobago": "tt", "turkmenistan": "tm", "united states of america": "us", "vatican city": "va", "viet nam": "vn",
}
