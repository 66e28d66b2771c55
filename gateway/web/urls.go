package web

import (
	"net"
	"net/url"
	"path"
	"sort"
	"strings"
)

// parseHTTPURL accepts absolute http and https URLs only; the error text is
// what users see.
func parseHTTPURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, failf("not a valid URL")
	}
	if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(raw, "/") && strings.Contains(strings.SplitN(raw, "/", 2)[0], ".") {
		// "example.com/page": people type URLs without a scheme.
		u, err = url.Parse("https://" + raw)
		if err != nil {
			return nil, failf("not a valid URL")
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, failf("URL must start with http:// or https://")
	}
	if u.Hostname() == "" {
		return nil, failf("URL has no host")
	}
	return u, nil
}

// trackingParams are query parameters that never change a page's content;
// dropping them lets the crawler see one page once.
var trackingParams = map[string]bool{
	"gclid": true, "fbclid": true, "msclkid": true, "mc_cid": true, "mc_eid": true,
	"ref_src": true, "_hsenc": true, "_hsmi": true, "yclid": true,
}

// canonicalURL is the form URLs are compared and stored in: lower-case
// scheme and host, no default port, no fragment, dot segments resolved,
// an empty path as "/", tracking parameters removed and the remaining
// query parameters sorted.
func canonicalURL(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	host := strings.ToLower(c.Hostname())
	port := c.Port()
	if (c.Scheme == "http" && port == "80") || (c.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	c.Host = host
	c.Fragment = ""
	c.RawFragment = ""
	c.User = nil
	p := c.EscapedPath()
	if p == "" {
		p = "/"
	} else {
		trailing := strings.HasSuffix(p, "/")
		p = path.Clean(p)
		if trailing && p != "/" {
			p += "/"
		}
	}
	c.RawPath = ""
	if dp, err := url.PathUnescape(p); err == nil {
		c.Path = dp
		if strings.Contains(strings.ToUpper(p), "%2F") {
			c.RawPath = p // an escaped slash is not a path separator
		}
	}
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			if trackingParams[strings.ToLower(k)] || strings.HasPrefix(strings.ToLower(k), "utm_") {
				q.Del(k)
			}
		}
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			vs := q[k]
			sort.Strings(vs)
			for _, v := range vs {
				if b.Len() > 0 {
					b.WriteByte('&')
				}
				b.WriteString(url.QueryEscape(k))
				b.WriteByte('=')
				b.WriteString(url.QueryEscape(v))
			}
		}
		c.RawQuery = b.String()
	}
	c.ForceQuery = false
	return c.String()
}

// canonicalString canonicalises a URL string, or returns it unchanged when
// it does not parse.
func canonicalString(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	return canonicalURL(u)
}

// resolveLink resolves href against base and returns the canonical
// absolute http(s) URL, or "" when the link leads nowhere fetchable.
func resolveLink(base *url.URL, href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	lower := strings.ToLower(href)
	for _, p := range []string{"javascript:", "mailto:", "tel:", "data:", "ftp:"} {
		if strings.HasPrefix(lower, p) {
			return ""
		}
	}
	ref, err := url.Parse(href)
	if err != nil {
		return ""
	}
	abs := base.ResolveReference(ref)
	if abs.Scheme != "http" && abs.Scheme != "https" || abs.Host == "" {
		return ""
	}
	return canonicalURL(abs)
}

// hostOf returns the lower-case host name of a URL string, without port.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// sameSite reports whether host b belongs to site a: the same host, or
// one differing only by a leading "www.".
func sameSite(a, b string) bool {
	return strings.TrimPrefix(a, "www.") == strings.TrimPrefix(b, "www.")
}

// domainMatch reports whether host is domain or one of its subdomains.
func domainMatch(host, domain string) bool {
	domain = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(domain), "."))
	if domain == "" {
		return false
	}
	if i := strings.Index(domain, "://"); i >= 0 {
		domain = hostOf(domain)
	}
	domain = strings.TrimPrefix(domain, "www.")
	host = strings.TrimPrefix(host, "www.")
	return host == domain || strings.HasSuffix(host, "."+domain)
}
