package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"hark/gateway/web"
	"hark/ui/common"
)

// hark index adds pages to the local web engine's search index, in the
// data directory the embedded gateway and `hark serve` use.

func newIndexCmd(a *App) *cobra.Command {
	var depth, limit int
	var allowPrivate, wholeSite, local, noEmbed, embedOnly bool
	var dbURL string
	cmd := &cobra.Command{
		Use:   "index URL|SITEMAP|DIR... | --embed-only",
		Short: "Add a site, a sitemap or a directory of HTML/markdown files to the local search index",
		Long: `index adds content to the local search index that the embedded gateway's
vendor_search and vendor_research read:

  URL      the site crawled from there, --depth links deep, at most --limit
           pages, honouring robots.txt: only pages under the URL's folder
           (http://host/docs/api/index.html reads /docs/api/...), or with
           --whole-site anywhere on its site; a server's folder listings
           are followed, never indexed
  SITEMAP  a URL ending in .xml or naming "sitemap": every page it lists
  DIR      every .html, .htm, .xhtml, .md, .markdown and .txt file under it,
           except a page's source copy (Sphinx's _sources/<page>.rst.txt,
           a manual's <stem>.txt beside <stem>.html), which it counts

Pages that extract and crawl read are indexed automatically as well.

With an embedding model configured (model.embedding in gateway.toml's
[model], or HARK_MODEL_EMBEDDING), index then gives every page that has
no vectors from that model, or whose text changed, a vector for each of
its first 8 passages: in batches, with a progress bar. A run that stops keeps the batches it stored; the next
embeds only the pages left: --embed-only does that without reading any
target again, and gives vectors to the pages that the TUI, extract and
crawl added since. A changed model embeds every page again. --no-embed
skips this.

With --database postgres://…, the pages go into that PostgreSQL database's
index instead: the one a team's hark serve replicas share.

With a remote gateway configured (a base URL), the local index is not the
one that gateway searches: index refuses, and says where its index is
(--database, or hark index on its host); --local fills this machine's
index anyway, for runs without a base URL.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if embedOnly {
				if noEmbed {
					return usagef("index: --embed-only and --no-embed ask for opposite things; give one")
				}
				if len(args) > 0 {
					return usagef("index --embed-only takes no URL, sitemap or folder: it embeds the pages the index holds")
				}
				return nil
			}
			return minArgs(1, "URL|SITEMAP|DIR")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if depth < 1 || depth > 5 {
				return usagef("--depth must be 1 to 5, got %d", depth)
			}
			if limit < 1 || limit > 100000 {
				return usagef("--limit must be 1 to 100000, got %d", limit)
			}
			if a.cfg.BaseURL != "" && dbURL == "" && !local {
				return usagef("index: the gateway at %s does not read this machine's index, which hark index fills; "+
					"index into that gateway's own: --database postgres://… (a team's hark serve database), or hark index on its host "+
					"with its --data-dir; --local fills this machine's index anyway (read when no base URL is set)", a.scrub(a.cfg.BaseURL))
			}
			if !cmd.Flags().Changed("allow-private") {
				// allow_private / HARK_ALLOW_PRIVATE, which extract and
				// crawl on the embedded gateway already honour.
				allowPrivate = a.cfg.AllowPrivate
			}
			// The flag decides for this run: the data directory opens
			// with it, once, for the one web engine that indexes.
			a.cfg.AllowPrivate = allowPrivate
			e, where, closeIndex, err := a.indexTo(cmd.Context(), dbURL, allowPrivate)
			if err != nil {
				return err
			}
			defer closeIndex()
			out := cmd.OutOrStdout()
			total, copiesTotal := 0, 0
			for _, target := range args {
				start := time.Now()
				copies := 0
				n, err := e.IndexWith(cmd.Context(), target, web.IndexOptions{Depth: depth, Limit: limit, WholeSite: wholeSite,
					SourceCopy: func(string, string) { copies++ }})
				total += n
				copiesTotal += copies
				if err != nil {
					return indexFailure(target, err, allowPrivate, a.privateHint(), total)
				}
				if !a.jsonOut {
					skipped := ""
					if copies > 0 {
						skipped = fmt.Sprintf("; skipped %s, the source copies of its HTML pages", fileCount(copies))
					}
					fmt.Fprintf(out, "Indexed %s from %s in %s%s.\n", pageCount(n), target, time.Since(start).Round(time.Millisecond), skipped)
				}
			}
			if embedOnly && !e.Embeds() {
				return usagef("index --embed-only: no embedding model is configured (model.embedding in gateway.toml's [model], or HARK_MODEL_EMBEDDING)")
			}
			var emb *web.EmbedReport
			if e.Embeds() && !noEmbed {
				rep, err := a.embedPages(cmd.Context(), e)
				if err != nil {
					return err
				}
				emb = &rep
			}
			held, err := e.IndexedPages(cmd.Context())
			if err != nil {
				return dataError{err}
			}
			if a.jsonOut {
				res := map[string]any{"indexed": total, "index_pages": held, "source_copies_skipped": copiesTotal}
				if emb != nil {
					res["embedded"] = emb
				}
				return json.NewEncoder(out).Encode(res)
			}
			if emb != nil {
				fmt.Fprintf(out, "Embedded %s with %s (%d dimensions); %s already had theirs.\n",
					pageCount(emb.Embedded), emb.Model, emb.Dims, pageCount(emb.Kept))
			}
			fmt.Fprintf(out, "The index in %s now holds %s.\n", where, pageCount(held))
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&depth, "depth", 2, "link depth to crawl from a URL, 1 to 5")
	f.IntVar(&limit, "limit", 500, "most pages to read from a URL or sitemap")
	f.BoolVar(&wholeSite, "whole-site", false, "from a URL, follow links anywhere on its site, not only under its folder")
	f.StringVar(&dbURL, "database", "", "postgres:// URL of a team gateway's database: index into its shared index, not the data directory's")
	f.BoolVar(&allowPrivate, "allow-private", false, "allow private, loopback and link-local addresses (an intranet or local server); default: the allow_private setting")
	f.BoolVar(&embedOnly, "embed-only", false, "read no target: embed the pages the index holds that lack a current vector from the embedding model")
	f.BoolVar(&noEmbed, "no-embed", false, "with an embedding model configured, do not embed the pages (a later run embeds them)")
	f.BoolVar(&local, "local", false, "with a base URL configured, fill this machine's index anyway (the embedded gateway's, which that gateway does not read)")
	return cmd
}

// embedPages gives the index's pages vectors from the embedding model,
// drawing a progress bar on a terminal. A failure is the model's (exit
// 4), and says that what was stored stays.
func (a *App) embedPages(ctx context.Context, e *web.Engine) (web.EmbedReport, error) {
	live := isTerminal(a.stderr) && !a.jsonOut
	progress := func(done, total int) {
		if !live || total == 0 {
			return
		}
		const width = 30
		fill := width * done / total
		fmt.Fprintf(a.stderr, "\rEmbedding with %s [%s%s] %d/%d pages", e.EmbeddingModel(),
			strings.Repeat("█", fill), strings.Repeat("░", width-fill), done, total)
		if done == total {
			fmt.Fprintln(a.stderr)
		}
	}
	rep, err := e.EmbedPages(ctx, progress)
	if err != nil {
		if live {
			fmt.Fprintln(a.stderr)
		}
		return rep, upstreamError{fmt.Errorf("%w\n%s embedded and kept; hark index --embed-only embeds the %s left",
			err, pageCount(rep.Embedded), pageCount(rep.Left))}
	}
	return rep, nil
}

// indexFailure says whose the failure is: the target named (a file that
// is not a page, a path that does not exist, a URL that is not http(s), a
// private address not allowed) is a usage error, exit 2; a site that
// could not be read is the far side's, exit 4. done is how many pages
// were indexed before.
func indexFailure(target string, err error, allowPrivate bool, hint string, done int) error {
	if done > 0 {
		err = fmt.Errorf("%w (%s indexed before the error)", err, pageCount(done))
	}
	if errors.Is(err, web.ErrAddressRefused) && !allowPrivate {
		return targetError{fmt.Errorf("%w\nhint: %s", err, hint)}
	}
	if _, statErr := os.Stat(target); statErr == nil || errors.Is(err, fs.ErrNotExist) {
		// A file or folder of the user's: not a page hark reads, or
		// unreadable.
		return targetError{err}
	}
	if u, perr := url.Parse(target); perr != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return targetError{err}
	}
	return upstreamError{err}
}

func fileCount(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

func pageCount(n int) string {
	if n == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", n)
}

// localIndex is the embedded gateway's search index for the TUI
// (common.Indexer): the gateway's own web engine (a.localWeb), so what the
// Index pane adds, search finds, and the database is opened once.
type localIndex struct{ a *App }

func (l *localIndex) engine() (*web.Engine, error) { return l.a.localWeb() }

func (l *localIndex) Index(ctx context.Context, target string, progress func(int, string)) (int, error) {
	e, err := l.engine()
	if err != nil {
		return 0, err
	}
	return e.IndexWithProgress(ctx, target, progress)
}

func (l *localIndex) Sources(ctx context.Context) ([]common.IndexSource, error) {
	e, err := l.engine()
	if err != nil {
		return nil, err
	}
	srcs, err := e.Sources(ctx)
	out := make([]common.IndexSource, len(srcs))
	for i, s := range srcs {
		out[i] = common.IndexSource{Source: s.Source, Pages: s.Pages, Indexed: s.Indexed}
	}
	return out, err
}

func (l *localIndex) Remove(ctx context.Context, source string) (int, error) {
	e, err := l.engine()
	if err != nil {
		return 0, err
	}
	return e.RemoveSource(ctx, source)
}

// IndexedPage is what the index holds for a page (common.PageReader).
func (l *localIndex) IndexedPage(ctx context.Context, url string) (title, content string, markdown bool, err error) {
	e, err := l.engine()
	if err != nil {
		return "", "", false, err
	}
	return e.IndexedPage(ctx, url)
}

// IndexedText is the kept text the index holds for a page (the research
// pane's citations read it).
func (l *localIndex) IndexedText(ctx context.Context, url string) (string, error) {
	e, err := l.engine()
	if err != nil {
		return "", err
	}
	return e.IndexedText(ctx, url)
}

// SourceText reads a source again as verify does (the research pane's
// v): a file from disk, a page through the local web engine.
func (l *localIndex) SourceText(ctx context.Context, url string) (string, error) {
	if strings.HasPrefix(url, "file:") {
		return fileSourceText(url)
	}
	return l.a.localPageText(ctx, url)
}

func (l *localIndex) Pages(ctx context.Context) (int, error) {
	e, err := l.engine()
	if err != nil {
		return 0, err
	}
	return e.IndexedPages(ctx)
}
