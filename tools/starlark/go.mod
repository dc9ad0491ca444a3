// etsb's BUILD-file evaluator. It builds offline against Debian's
// golang-starlark-dev (go.starlark.net as of 2021-01-22) in GOPATH mode:
//
//	GOPATH=/usr/share/gocode GO111MODULE=off go build .   (and go test .)
//
// That snapshot's own go.mod names modules Debian does not ship
// (google.golang.org/protobuf, github.com/chzyer/logex), so module mode
// cannot resolve its graph without a network; this file records the module
// and its one dependency for module-aware tools and networked builds, which
// may drop the replace line to fetch go.starlark.net instead.
module etsb.dev/starlark

go 1.19

require go.starlark.net v0.0.0-00010101000000-000000000000

replace go.starlark.net => /usr/share/gocode/src/go.starlark.net
