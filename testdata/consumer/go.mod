module example.com/consumer

go 1.26.0

require github.com/godu-sh/godu v0.0.0

require (
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/godu-sh/godu => ../..
