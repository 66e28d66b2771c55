// Package styles forwards chroma v2's style registry to chroma v0.10.0's;
// see the module's root package for why.
package styles

import (
	c "github.com/alecthomas/chroma"
	s "github.com/alecthomas/chroma/styles"
)

// Registry is the one registry of styles, chroma v0.10.0's own map.
var Registry = s.Registry

// Register adds a style to the registry.
func Register(style *c.Style) *c.Style { return s.Register(style) }

// Get returns a style by name, or the fallback style.
func Get(name string) *c.Style { return s.Get(name) }
