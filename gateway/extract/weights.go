package extract

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
)

// Weights are the numbers the extractor weighs its evidence by, in one
// place: how much a class name counts, what share of links makes a
// block boilerplate, how much of the page a container must score to be
// the article, and the structural features (recommendation rails,
// repeated blocks, comment threads, captions). Their values are in
// weights.json (DefaultWeights), which `bench/extract -fit -write`
// fits on the tuning parts of every labelled set, judged by
// cross-validation with folds split by site (docs/web.md, "Articles
// from sites hark has never seen").
//
// Rules of what a block is (a heading, a table of data, a form) are not
// weights; how much evidence is enough is.
type Weights struct {
	// ClassName is what a container's class or id adds to its article
	// score when it names content, and takes when it names boilerplate
	// (Readability's 25).
	ClassName float64
	// ArticleShare is the share of the page's paragraph score the best
	// container must hold before the content is narrowed to it.
	ArticleShare float64
	// SiblingShare is the share of the best container's score a sibling
	// must reach to be read as more of the article.
	SiblingShare float64
	// BoilerplateLinks is the share of a block's text in links over which
	// a block beside the article is boilerplate.
	BoilerplateLinks float64
	// ClutterLinks and WeakClutterLinks are the shares of links over
	// which a box inside an article is clutter: with little prose
	// besides, and whatever its prose when its name does not say content.
	ClutterLinks, WeakClutterLinks float64
	// CaptionLetters: a picture's caption shorter than this, in letters,
	// goes from an article; 0 keeps every caption.
	CaptionLetters int
	// CaptionLevels: a block named caption that is not in a <figure> is
	// a picture's caption when the element this many levels above it
	// holds a picture outside it (a gallery's item, a picture and its
	// caption side by side in a box); 0 reads captions in <figure>s only.
	CaptionLevels int
	// RepeatLetters: a block of an article whose text, of this many
	// letters or more, the page holds twice or more (a gallery's
	// captions, a pull quote) is kept once; 0 keeps repeats.
	RepeatLetters int
	// RailCards: this many sibling cards or more of one shape, each
	// mostly a link (RailLinks), make a recommendation rail, which goes
	// from an article wherever it stands; 0 turns the feature off.
	RailCards int
	RailLinks float64
	// GalleryCards: this many sibling cards or more of one shape, each a
	// picture with under GalleryLetters letters of text, make a gallery,
	// which goes from an article; 0 turns the feature off.
	GalleryCards, GalleryLetters int
	// CommentItems: this many sibling entries or more of one shape, each
	// with a date or an avatar beside its prose, make a thread of
	// readers' comments; 0 turns the feature off.
	CommentItems int
	// TailCards: after the article's last paragraph of prose, this many
	// sibling cards or more of one shape, each opening with a link and
	// with a short line beside it, are teasers for other pages; 0 turns
	// the feature off.
	TailCards int
	// TailLinks: after the article's last paragraph of prose, a block
	// whose share of links is over this goes (a rail, a tag line, a
	// "more from" box); 1 or more turns the feature off.
	TailLinks float64
	// DatelineWords: before the article's first paragraph of prose or
	// after its last, a line of this many words or fewer that holds a
	// date or a time is a dateline or byline and goes; 0 turns it off.
	DatelineWords int
	// ProseParagraphs: a page that gives no article signal is read as an
	// article when it holds this many paragraphs of prose (150 letters
	// or more, under a fifth links) and no code (<pre>, <code>), as news
	// pages from before og:type and schema.org are; 0 turns it off.
	ProseParagraphs int
	// DatedParagraphs: a page that gives no article signal and holds no
	// code is read as an article when it holds this many paragraphs of
	// prose and a short line with a date or a time before the first (a
	// story under its dateline); 0 turns it off.
	DatedParagraphs int
}

// DefaultWeights are the weights Main uses, read from weights.json,
// which `bench/extract -fit -write` regenerates: the search over every
// set's tuning part, whose per-fold figures the same run prints. Its
// note says what each value was chosen by.
var DefaultWeights = mustParseWeights(weightsFile)

//go:embed weights.json
var weightsFile []byte

// WeightsFile is what weights.json holds: a note on where the weights
// came from, and every field of Weights by its name.
type WeightsFile struct {
	Note    string  `json:"note"`
	Weights Weights `json:"weights"`
}

// ParseWeights reads a weights file. Every field of Weights must be
// there (a field left out would silently weigh 0, which turns most
// features off) and no other.
func ParseWeights(b []byte) (Weights, error) {
	var raw struct {
		Weights map[string]json.RawMessage `json:"weights"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Weights{}, err
	}
	t := reflect.TypeOf(Weights{})
	for i := range t.NumField() {
		if _, ok := raw.Weights[t.Field(i).Name]; !ok {
			return Weights{}, fmt.Errorf("weights.%s: missing (every weight must be given)", t.Field(i).Name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f WeightsFile
	if err := dec.Decode(&f); err != nil {
		return Weights{}, err
	}
	return f.Weights, nil
}

func mustParseWeights(b []byte) Weights {
	w, err := ParseWeights(b)
	if err != nil {
		// weights.json is built in; TestWeightsFile keeps it whole.
		panic("extract: weights.json: " + err.Error())
	}
	return w
}
