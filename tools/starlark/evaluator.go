package main

// The evaluator: the workspace it reads, the shared cache of .bzl modules,
// and where BUILD files' print() goes.

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"

	"go.starlark.net/starlark"
)

type evaluator struct {
	root        string
	predeclared starlark.StringDict
	maxSteps    uint64 // per file evaluated: a BUILD file or a .bzl module

	mu      sync.Mutex // guards modules and the static fields of every module
	modules map[string]*module

	buildFiles sync.Map // package path -> string ("" when the directory has no BUILD file)
	callStarts sync.Map // file -> map[lparen key]syntax.Position, see callPos

	stderrMu sync.Mutex
	stderr   io.Writer
}

// defaultMaxSteps bounds the work of evaluating one file: far beyond what
// real BUILD and .bzl files need (a thousand macro calls take about a million
// steps), and reached in seconds by a file that loops for ever.
const defaultMaxSteps = 200_000_000

func newEvaluator(root string, stderr io.Writer) *evaluator {
	ev := &evaluator{root: root, modules: map[string]*module{}, stderr: stderr, maxSteps: defaultMaxSteps}
	ev.predeclared = predeclared()
	return ev
}

// newThread is a Starlark thread for evaluating one file, with the step limit.
func (ev *evaluator) newThread(name string) *starlark.Thread {
	thread := &starlark.Thread{Name: name, Print: ev.print}
	thread.SetMaxExecutionSteps(ev.maxSteps)
	return thread
}

// buildFile returns the BUILD file of package pkg relative to the root, or ""
// when the package directory has neither BUILD.bazel nor BUILD.
func (ev *evaluator) buildFile(pkg string) string {
	if v, ok := ev.buildFiles.Load(pkg); ok {
		return v.(string)
	}
	found := ""
	for _, name := range []string{"BUILD.bazel", "BUILD"} {
		rel := path.Join(pkg, name)
		if st, err := os.Stat(ev.abs(rel)); err == nil && !st.IsDir() {
			found = rel
			break
		}
	}
	ev.buildFiles.Store(pkg, found)
	return found
}

func (ev *evaluator) abs(rel string) string {
	return filepath.Join(ev.root, filepath.FromSlash(rel))
}

func (ev *evaluator) print(thread *starlark.Thread, msg string) {
	pos := ev.callPos(thread.CallFrame(1).Pos)
	ev.stderrMu.Lock()
	fmt.Fprintf(ev.stderr, "DEBUG: %s: %s\n", pos, msg)
	ev.stderrMu.Unlock()
}
