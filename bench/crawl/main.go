// Command crawl benchmarks hark's crawler against gocolly/colly v2 on the
// same generated loopback site, at the same concurrency. It is a separate
// module so that colly never enters hark's go.mod.
//
//	go run . -crawler hark      # hark's Crawl: fetch, extract, index
//	go run . -crawler hark-map  # hark's fetcher and link reader only (Map's work per page)
//	go run . -crawler colly     # colly: fetch and follow links
//
// Each run is one process, so peak RSS (VmHWM) belongs to one crawler.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	_ "modernc.org/sqlite"

	"hark/api"
	"hark/gateway/web"
)

func main() {
	crawler := flag.String("crawler", "hark", "hark, hark-map or colly")
	pages := flag.Int("pages", 2000, "pages in the generated site")
	conc := flag.Int("concurrency", 8, "requests in flight")
	flag.Parse()

	site, served := startSite(*pages)
	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	start := time.Now()
	var n int
	var err error
	switch *crawler {
	case "hark", "hark-map":
		n, err = runHark(site, *pages, *conc, *crawler == "hark-map")
	case "colly":
		n, err = runColly(site, *conc)
	default:
		log.Fatalf("unknown crawler %q", *crawler)
	}
	d := time.Since(start)
	stop()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("crawler=%s pages=%d served=%d concurrency=%d seconds=%.2f pages_per_s=%.0f peak_heap_MiB=%.1f peak_rss_MiB=%.1f go=%s cpus=%d\n",
		*crawler, n, served.Load(), *conc, d.Seconds(), float64(n)/d.Seconds(), float64(peak.Load())/(1<<20), vmHWM(), runtime.Version(), runtime.NumCPU())
}

// startSite serves a generated site: page i links to pages 5i+1..5i+5,
// to its neighbours and home, so breadth-first from / reaches all pages
// within depth 5. Each page has about 4 KB of text.
func startSite(n int) (string, *atomic.Int64) {
	words := strings.Fields("crawler index page link robots sitemap fetch parse extract content server client politeness delay depth breadth limit search query result ranking score token phrase snippet answer research report source citation")
	var served atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		i := 0
		if r.URL.Path != "/" {
			var err error
			i, err = strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
			if err != nil || i < 0 || i >= n {
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>Page %d</title></head><body><nav><a href=\"/\">Home</a>", i)
		if i > 0 {
			fmt.Fprintf(&b, " <a href=\"/p/%d\">Previous</a>", i-1)
		}
		if i+1 < n {
			fmt.Fprintf(&b, " <a href=\"/p/%d\">Next</a>", i+1)
		}
		fmt.Fprintf(&b, "</nav><main><article><h1>Page %d</h1>", i)
		for p := 0; p < 8; p++ {
			b.WriteString("<p>")
			for k := 0; k < 70; k++ {
				b.WriteString(words[(i*31+p*7+k*k)%len(words)])
				if k%12 == 11 {
					b.WriteString(". ")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString("</p>")
		}
		b.WriteString("<ul>")
		for c := 5*i + 1; c <= 5*i+5 && c < n; c++ {
			fmt.Fprintf(&b, "<li><a href=\"/p/%d\">Child %d</a></li>", c, c)
		}
		b.WriteString("</ul></article></main><footer>Generated site</footer></body></html>")
		fmt.Fprint(w, b.String())
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, h)
	return "http://" + ln.Addr().String(), &served
}

func runHark(site string, pages, conc int, mapOnly bool) (int, error) {
	dir, err := os.MkdirTemp("", "hark-crawl-bench")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "bench.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	e, err := web.New(web.Config{DB: db, AllowPrivate: true, Concurrency: conc, HostConcurrency: conc})
	if err != nil {
		return 0, err
	}
	defer e.Close()
	ctx := context.Background()
	if mapOnly {
		// Map lists its last level without fetching; depth 6 (beyond the
		// tool's 5, which the engine itself does not cap) makes it fetch
		// every page of the site (levels 0..5) for its links.
		out, err := e.Map(ctx, api.MapInput{URL: site + "/", MaxDepth: 6, MaxBreadth: 500, Limit: pages})
		if err != nil {
			return 0, err
		}
		return len(out.Results), nil
	}
	out, err := e.Crawl(ctx, api.CrawlInput{URL: site + "/", MaxDepth: 5, MaxBreadth: 500, Limit: pages})
	if err != nil {
		return 0, err
	}
	return len(out.Results), nil
}

func runColly(site string, conc int) (int, error) {
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("colly-bench")) // the site is finite: no depth limit
	c.IgnoreRobotsTxt = false
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: conc}); err != nil {
		return 0, err
	}
	var mu sync.Mutex
	pages := 0
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		pages++
		mu.Unlock()
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		_ = e.Request.Visit(e.Attr("href"))
	})
	if err := c.Visit(site + "/"); err != nil {
		return 0, err
	}
	c.Wait()
	return pages, nil
}

func sampleHeap(peak *atomic.Uint64) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// vmHWM is the process's peak resident set size in MiB.
func vmHWM() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
