package web

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"hark/gateway/extract/score"
)

func prf(got, want string) (p, r, f float64) { return score.Text(got, want) }

// TestExtractionQuality scores main-content extraction on the real-world
// pages of testdata/extract (see SOURCES.md there). Run with -v for the
// per-page table; it fails if the mean F1 drops below 0.85, or below
// go-trafilatura's 0.983 on the articles (blog_*, news_*).
func TestExtractionQuality(t *testing.T) {
	files, _ := filepath.Glob("testdata/extract/*.html")
	sort.Strings(files)
	if len(files) < 8 {
		t.Fatalf("quality set has %d pages", len(files))
	}
	var sum, sumAdv, sumBase [3]float64
	var articleF1 float64
	articles := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".truth.txt")
		if err != nil {
			t.Fatal(err)
		}
		p, err := parseHTML("http://docs.example/"+filepath.Base(f), body, "", time.Now(), extractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pa, err := parseHTML("http://docs.example/"+filepath.Base(f), body, "", time.Now(), extractOptions{Advanced: true})
		if err != nil {
			t.Fatal(err)
		}
		pr, rc, f1 := prf(p.Text, string(truth))
		ap, ar, af := prf(pa.Text, string(truth))
		// Baseline: all visible text of the page.
		doc, _ := html.Parse(bytes.NewReader(body))
		bp, br, bf := prf(nodeText(doc), string(truth))
		t.Logf("%-38s basic P %.3f R %.3f F1 %.3f | advanced P %.3f R %.3f F1 %.3f | whole page P %.3f R %.3f F1 %.3f",
			filepath.Base(f), pr, rc, f1, ap, ar, af, bp, br, bf)
		if strings.HasPrefix(filepath.Base(f), "blog_") || strings.HasPrefix(filepath.Base(f), "news_") {
			articleF1 += f1
			articles++
		}
		sumAdv[0], sumAdv[1], sumAdv[2] = sumAdv[0]+ap, sumAdv[1]+ar, sumAdv[2]+af
		sum[0], sum[1], sum[2] = sum[0]+pr, sum[1]+rc, sum[2]+f1
		sumBase[0], sumBase[1], sumBase[2] = sumBase[0]+bp, sumBase[1]+br, sumBase[2]+bf
	}
	n := float64(len(files))
	t.Logf("%-38s basic P %.3f R %.3f F1 %.3f | advanced P %.3f R %.3f F1 %.3f | whole page P %.3f R %.3f F1 %.3f", "MEAN",
		sum[0]/n, sum[1]/n, sum[2]/n, sumAdv[0]/n, sumAdv[1]/n, sumAdv[2]/n, sumBase[0]/n, sumBase[1]/n, sumBase[2]/n)
	if sum[2]/n < 0.85 {
		t.Errorf("mean F1 %.3f below 0.85", sum[2]/n)
	}
	// Articles: comments, bylines, share buttons and related posts out.
	// go-trafilatura scores 0.983 on them (bench/extract, BENCHMARKS.md):
	// hark must not read articles worse than its peer.
	if articles < 3 {
		t.Fatalf("the quality set has %d articles", articles)
	}
	if a := articleF1 / float64(articles); a < 0.983 {
		t.Errorf("articles' mean F1 %.3f below go-trafilatura's 0.983", a)
	}
}
