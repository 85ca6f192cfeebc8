// Package docs holds rtype's documents (PROTOCOL.md, DESIGN.md, BENCHMARKS.md, ...). Its Go
// code is only the tests that tie DESIGN.md to the repository: the package map against
// `go list ./...`, the ebiten, cgo and layering lines against `go list -deps`, and every
// identifier it names against the packages' sources. docs/PROTOCOL.md is checked by the
// tests of the packages that implement it (net/wire, lobby, game).
package docs
