// Package chroma stands in for github.com/alecthomas/chroma/v2 in hark's
// build (a replace in hark's go.mod). It exists for start-up time: chroma
// v2 parses all of its XML lexers and styles in package init, 13 to 16 ms
// at every hark start before main runs, although hark highlights code only
// when a document with a code block is rendered. chroma v0.10.0, the last
// release of the same project before v2 (its lexers are the ones v2's XML
// was generated from), builds each lexer lazily and inits in about 2 ms.
//
// This module provides exactly what glamour calls (glamour/v2/ansi's
// codeblock.go: the token types, MustNewStyle, styles.Registry and
// styles.Register, quick.Highlight) by forwarding to chroma v0.10.0. It
// holds no highlighting logic of its own. hark's main_test.go fails if the
// real chroma v2 comes back into the build.
package chroma

import c "github.com/alecthomas/chroma"

type (
	Style        = c.Style
	StyleEntries = c.StyleEntries
	TokenType    = c.TokenType
)

// MustNewStyle creates a style from entries, panicking on a bad entry.
func MustNewStyle(name string, entries StyleEntries) *Style { return c.MustNewStyle(name, entries) }

// The token types glamour styles.
const (
	Background          = c.Background
	Text                = c.Text
	Error               = c.Error
	Comment             = c.Comment
	CommentPreproc      = c.CommentPreproc
	Keyword             = c.Keyword
	KeywordReserved     = c.KeywordReserved
	KeywordNamespace    = c.KeywordNamespace
	KeywordType         = c.KeywordType
	Operator            = c.Operator
	Punctuation         = c.Punctuation
	Name                = c.Name
	NameBuiltin         = c.NameBuiltin
	NameTag             = c.NameTag
	NameAttribute       = c.NameAttribute
	NameClass           = c.NameClass
	NameConstant        = c.NameConstant
	NameDecorator       = c.NameDecorator
	NameException       = c.NameException
	NameFunction        = c.NameFunction
	NameOther           = c.NameOther
	Literal             = c.Literal
	LiteralNumber       = c.LiteralNumber
	LiteralDate         = c.LiteralDate
	LiteralString       = c.LiteralString
	LiteralStringEscape = c.LiteralStringEscape
	GenericDeleted      = c.GenericDeleted
	GenericEmph         = c.GenericEmph
	GenericInserted     = c.GenericInserted
	GenericStrong       = c.GenericStrong
	GenericSubheading   = c.GenericSubheading
)
