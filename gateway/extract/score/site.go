package score

import (
	"hash/fnv"
	"net/url"
	"strings"
)

// The split every labelled set is scored by, in one place for
// bench/extract and gateway/extract's quality test: by site, so that no
// part is scored on a site another part was tuned on. A third of the
// sites (FNV-1a hash 0 mod 3) are held out; the tuning sites fall in
// Folds folds by the same hash.

// Folds is how many parts the tuning sites are cut into for
// cross-validation.
const Folds = 5

// HeldOut reports a site whose pages are never used for tuning.
func HeldOut(site string) bool {
	return siteHash(site)%3 == 0
}

// Fold is the cross-validation fold of a tuning site.
func Fold(site string) int {
	return int(siteHash(site)/3) % Folds
}

func siteHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// SiteOf is the registrable domain of an address: its last two labels,
// or three under a country's second level (bbc.co.uk). A page kept by
// the Wayback Machine is the site it kept. Blogs of one host
// (*.wordpress.com) are one site: they share its templates.
func SiteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	host := strings.ToLower(u.Hostname())
	if host == "web.archive.org" {
		// /web/20160218174457/http://bewegliche-lettern.de/…
		parts := strings.SplitN(strings.TrimPrefix(u.Path, "/web/"), "/", 2)
		if len(parts) == 2 {
			inner := parts[1]
			if !strings.Contains(inner, "://") {
				inner = "http://" + inner
			}
			return SiteOf(inner)
		}
	}
	labels := strings.Split(host, ".")
	n := 2
	if len(labels) >= 3 && len(labels[len(labels)-1]) == 2 {
		switch labels[len(labels)-2] {
		case "co", "com", "org", "net", "gov", "ac", "edu", "or", "ne", "go":
			n = 3
		}
	}
	if len(labels) <= n {
		return host
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

// CommittedSite is the site of a committed page that has no address: a
// manual's package (valgrind_…), a Readability page's site
// (rdb_wikipedia-2), a blog or news page's own name. A page labelled
// with snippets has an address, and its site is SiteOf that address.
func CommittedSite(name string) string {
	name = strings.TrimSuffix(name, ".html")
	switch {
	case strings.HasPrefix(name, "rdb_"):
		return strings.TrimRight(strings.TrimRight(strings.TrimPrefix(name, "rdb_"), "0123456789"), "-")
	case strings.HasPrefix(name, "blog_"), strings.HasPrefix(name, "news_"), strings.HasPrefix(name, "traf_"):
		return name
	}
	pkg, _, _ := strings.Cut(name, "_")
	return pkg
}
