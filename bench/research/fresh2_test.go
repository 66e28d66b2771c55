package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hark/gateway/research/researchset"
)

// Each round is what its README.md says: at least 44 questions (48 from
// fresh3 on), 12 per documentation set, half worded by the user and half
// in the manual's terms, each gold page in one of its sets.
func TestRoundsAreBalanced(t *testing.T) {
	files, err := filepath.Glob("fresh*/sets.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("rounds with a sets.json: %v, %v; want fresh2 and fresh3", files, err)
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		rd, err := loadRound(dir)
		if err != nil {
			t.Fatal(err)
		}
		least := 48
		if dir == "fresh2" {
			least = 44
		}
		if len(rd.qs) < least {
			t.Errorf("%s: %d questions; the round needs at least %d", dir, len(rd.qs), least)
		}
		count := map[string]int{}
		for i, q := range rd.qs {
			count[rd.sets[rd.set[i]].Name+" "+q.Wording]++
			if q.Part != researchset.HeldOut {
				t.Errorf("%s #%d: part %s; a fresh round's questions are all held-out", dir, q.ID, q.Part)
			}
		}
		for _, s := range rd.sets {
			if count[s.Name+" user"] != count[s.Name+" manual"] || count[s.Name+" user"] < 6 {
				t.Errorf("%s %s: %d worded by the user, %d in the manual's terms; want as many, at least 6", dir, s.Name, count[s.Name+" user"], count[s.Name+" manual"])
			}
		}
	}
}

// writeRound writes a round's sets.json and questions.json into a
// temporary folder and returns it.
func writeRound(t *testing.T, sets, questions string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "freshT")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sets.json"), []byte(sets), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "questions.json"), []byte(questions), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const twoSets = `{"docs": "/nowhere", "sets": [
 {"name": "alpha", "folder": "alpha/html", "package": "alpha-doc"},
 {"name": "beta", "folder": "beta", "package": "beta-doc"}]}`

// A round's sets come from its sets.json, and each question is counted
// in the set whose folder holds its gold page.
func TestLoadRoundReadsItsSets(t *testing.T) {
	dir := writeRound(t, twoSets, `[
 {"id":1,"part":"held-out","wording":"user","question":"a?","fact":["f"],"page":"beta/b.html"},
 {"id":2,"part":"held-out","wording":"manual","question":"b?","fact":["f"],"page":"alpha/html/x/a.html"}]`)
	rd, err := loadRound(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rd.name != "freshT" || rd.docs != "/nowhere" || len(rd.sets) != 2 || rd.sets[1].Package != "beta-doc" {
		t.Errorf("round %s over %s, sets %+v; want freshT over /nowhere, alpha and beta", rd.name, rd.docs, rd.sets)
	}
	if !slices.Equal(rd.set, []int{1, 0}) {
		t.Errorf("sets of the questions: %v; want [1 0]", rd.set)
	}
	if got := rd.packages(); got != "apt-get install alpha-doc beta-doc" {
		t.Errorf("packages: %q", got)
	}
}

func TestLoadRoundRefusesABadRound(t *testing.T) {
	q := `[{"id":1,"part":"held-out","wording":"user","question":"a?","fact":["f"],"page":"beta/b.html"}]`
	for _, c := range []struct{ sets, questions, want string }{
		{twoSets, `[{"id":1,"part":"held-out","wording":"user","question":"a?","fact":["f"],"page":"gamma/c.html"}]`, "none of the sets"},
		{twoSets, `[{"id":1,"part":"held-out","wording":"user","question":"a?","fact":["f"],"page":"alphabet/c.html"}]`, "none of the sets"},
		{`{"sets": []}`, q, "sets is empty"},
		{`{"sets": [{"name": "beta", "folder": "beta"}]}`, q, "package"},
		{`{"sets": [{"name": "beta", "folder": "../beta", "package": "b"}]}`, q, "folder"},
		{`{"sets": [{"name": "beta", "folder": "/usr/beta", "package": "b"}]}`, q, "folder"},
		{`{"sets": [{"name": "beta", "folder": "beta", "package": "b"}, {"name": "beta", "folder": "beta/x", "package": "b"}]}`, q, "twice"},
		{`{"sets": [{"name": "beta", "folder": "beta", "package": "b"}, {"name": "b2", "folder": "beta", "package": "b"}]}`, q, "two sets"},
		{`{"set": [{"name": "beta", "folder": "beta", "package": "b"}]}`, q, "unknown field"},
		{twoSets, `[{"id":1,"part":"held-out","wording":"casual","question":"a?","fact":["f"],"page":"beta/b.html"}]`, "wording"},
	} {
		if _, err := loadRound(writeRound(t, c.sets, c.questions)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sets %s, questions %s: %v; want an error saying %q", c.sets, c.questions, err, c.want)
		}
	}
}

// The check mode indexes the round's sets under the docs root and finds
// each fact on its gold page's text, asking research nothing: it passes
// when every fact is there and fails naming the question when one is not,
// and a set not installed is named with its package.
func TestRoundCheck(t *testing.T) {
	docs := t.TempDir()
	for name, body := range map[string]string{
		"alpha/html/vacuum.html": "<html><head><title>VACUUM</title></head><body><h1>VACUUM</h1><p>VACUUM reclaims storage occupied by dead tuples. Use <code>VACUUM FULL</code> to rewrite the whole table.</p></body></html>",
		"beta/ch01.html":         "<html><head><title>Tips</title></head><body><h1>Tips</h1><p>Run <code>apt-get   update</code> before you install a package.</p></body></html>",
	} {
		p := filepath.Join(docs, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := `[
 {"id":1,"part":"held-out","wording":"manual","question":"What does VACUUM FULL do?","fact":["VACUUM FULL","reclaims storage"],"page":"alpha/html/vacuum.html"},
 {"id":2,"part":"held-out","wording":"user","question":"How do I refresh the package list?","fact":["apt-get update"],"page":"beta/ch01.html"}]`
	rd, err := loadRound(writeRound(t, twoSets, good))
	if err != nil {
		t.Fatal(err)
	}
	rd.docs = docs
	if err := rd.run(nil, true, false); err != nil {
		t.Errorf("every fact on its page: %v; want the check to pass", err)
	}
	bad := strings.Replace(good, `"reclaims storage"`, `"frees the disk at once"`, 1)
	rd, err = loadRound(writeRound(t, twoSets, bad))
	if err != nil {
		t.Fatal(err)
	}
	rd.docs = docs
	if err := rd.run(nil, true, false); err == nil || !strings.Contains(err.Error(), "1 of 2") {
		t.Errorf("a fact on no page: %v; want the check to fail on 1 of 2 questions", err)
	}
	os.RemoveAll(filepath.Join(docs, "beta"))
	if err := rd.run(nil, true, false); err == nil || !strings.Contains(err.Error(), "beta-doc") {
		t.Errorf("a set not installed: %v; want an error naming its package", err)
	}
}

func TestLoadFresh2RefusesAWordingItDoesNotKnow(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.json")
	os.WriteFile(file, []byte(`[{"id":1,"part":"held-out","wording":"casual","question":"q?","fact":["f"],"page":"git-doc/git.html"}]`), 0o644)
	if _, err := loadFresh2(file); err == nil || !strings.Contains(err.Error(), "wording") {
		t.Errorf("a wording neither user nor manual: %v; want an error naming wording", err)
	}
	os.WriteFile(file, []byte(`[{"id":1,"part":"held-out","wording":"user","question":"q?","fact":["f"],"page":"git-doc/git.html"},{"id":1,"part":"held-out","wording":"user","question":"r?","fact":["f"],"page":"git-doc/git.html"}]`), 0o644)
	if _, err := loadFresh2(file); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("an id given twice: %v; want an error", err)
	}
}

func TestSourceTwin(t *testing.T) {
	for in, want := range map[string]string{
		"file:///usr/share/doc/python3.11/html/_sources/library/os.rst.txt":       "file:///usr/share/doc/python3.11/html/library/os.html",
		"file:///usr/share/doc/sphinx-doc/html/_sources/usage/theming.rst.txt":    "file:///usr/share/doc/sphinx-doc/html/usage/theming.html",
		"file:///usr/share/doc/git-doc/git-reset.txt":                             "file:///usr/share/doc/git-doc/git-reset.html",
		"file:///usr/share/doc/git-doc/git-reset.html":                            "file:///usr/share/doc/git-doc/git-reset.html",
		"file:///usr/share/doc/rust-doc/html/book/ch04-01-what-is-ownership.html": "file:///usr/share/doc/rust-doc/html/book/ch04-01-what-is-ownership.html",
	} {
		if got := sourceTwin(in); got != want {
			t.Errorf("sourceTwin(%s) = %s; want %s", in, got, want)
		}
	}
}

// The diagnosis tells the gold page from its source copy, and reads a
// fact as the rater does (spaces folded, code marks dropped).
func TestFresh2DiagGoldAndFact(t *testing.T) {
	q := researchset.Question{Page: "sphinx-doc/html/usage/theming.html", Fact: []string{"html_theme", "set  the theme"}}
	gold := "file:///usr/share/doc/sphinx-doc/html/usage/theming.html"
	copied := "file:///usr/share/doc/sphinx-doc/html/_sources/usage/theming.rst.txt"
	other := "file:///usr/share/doc/sphinx-doc/html/usage/configuration.html"
	if !isGold(q, gold) || isGold(q, copied) || isGold(q, other) {
		t.Errorf("isGold: gold %v, copy %v, other %v; want true, false, false", isGold(q, gold), isGold(q, copied), isGold(q, other))
	}
	if isGoldCopy(q, gold) || !isGoldCopy(q, copied) || isGoldCopy(q, other) {
		t.Errorf("isGoldCopy: gold %v, copy %v, other %v; want false, true, false", isGoldCopy(q, gold), isGoldCopy(q, copied), isGoldCopy(q, other))
	}
	for text, want := range map[string]bool{
		"set the `html_theme` value": true,
		"you   set the\ntheme here":  true,
		"html theme is not the name": false,
	} {
		if got := holdsFact(q, text); got != want {
			t.Errorf("holdsFact(%q) = %v; want %v", text, got, want)
		}
	}
}
