module github.com/alecthomas/chroma/v2

go 1.26.0

require github.com/alecthomas/chroma v0.10.0

require github.com/dlclark/regexp2 v1.4.0 // indirect
