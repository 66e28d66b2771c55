package extract

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestZZStages(t *testing.T) {
	f := os.Getenv("ZZ")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	doc, _ := html.Parse(strings.NewReader(string(b)))
	w := DefaultWeights
	var target *html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode && strings.Contains(n.Data, "He did so after") {
			target = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	fmt.Println("target", target != nil)
	var chain []*html.Node
	for n := target; n != nil; n = n.Parent {
		chain = append(chain, n)
	}
	article := isArticlePage(doc)
	p := &pruner{article: article, w: &w}
	p.prune(doc, false)
	p.detach()
	for _, n := range chain {
		fmt.Printf("%s.%s#%s parent=%v\n", n.Data, attr(n, "class"), attr(n, "id"), n.Parent != nil)
		if n.Parent == nil {
			break
		}
	}
	root, prose := pick(doc, p.contents)
	fmt.Println("article", article, "root", root.Data, attr(root, "class"), attr(root, "id"), "prose", prose[root], "namedProse", p.namedProse, "linkDense", len(p.linkDense))
	fmt.Println(len(textOf(root)))
}
