//go:build godu_vendor

package bulk

// The C core lives in csrc/ at the module's top; this import, under a tag
// no build sets, makes `go mod vendor` copy it (see csrc/vendor.go).
import _ "github.com/godu-sh/godu/csrc"
