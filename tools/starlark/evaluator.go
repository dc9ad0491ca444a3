package main

// The evaluator: the workspace it reads, the shared cache of .bzl modules,
// and where BUILD files' print() goes.

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"go.starlark.net/starlark"
)

type evaluator struct {
	root        string
	repos       repositories
	predeclared starlark.StringDict
	dialect     string               // the build system emulated (--emulate): "etsb" or "buck2"
	rules       map[string]*ruleSpec // its primitive rules
	maxSteps    uint64               // per file evaluated: a BUILD file or a .bzl module

	mu      sync.Mutex // guards modules and the static fields of every module
	modules map[string]*module

	buildFiles sync.Map // package path -> string ("" when the directory has no BUILD file)
	callStarts sync.Map // file -> map[lparen key]syntax.Position, see callPos

	stderrMu sync.Mutex
	stderr   io.Writer

	// The prelude: a .bzl file whose public globals every BUILD file sees
	// without a load (--prelude), computed once.
	prelude      string
	preludeOnce  sync.Once
	buildEnv     starlark.StringDict
	preludeFiles []string
	preludeErr   *evalError
}

// buildEnvironment is what BUILD files see predeclared: the built-ins and the
// prelude's public globals (which win over a built-in of the same name), the
// prelude's files (inputs of every package), or the error loading it.
func (ev *evaluator) buildEnvironment() (starlark.StringDict, []string, *evalError) {
	ev.preludeOnce.Do(func() {
		ev.buildEnv = ev.predeclared
		if ev.prelude == "" {
			return
		}
		file, pkg, err := ev.resolveLabel(ev.prelude, "")
		if err != nil {
			ev.preludeErr = &evalError{message: fmt.Sprintf("the prelude %s: %v", ev.prelude, err)}
			return
		}
		m := ev.get(file, pkg)
		ev.preludeFiles = m.closure
		globals, err := ev.load(m)
		if err != nil {
			ev.preludeErr = ev.describe(err, file)
			return
		}
		env := starlark.StringDict{}
		for name, value := range ev.predeclared {
			env[name] = value
		}
		for name, value := range globals {
			if !strings.HasPrefix(name, "_") {
				env[name] = value
			}
		}
		env.Freeze()
		ev.buildEnv = env
	})
	return ev.buildEnv, ev.preludeFiles, ev.preludeErr
}

// defaultMaxSteps bounds the work of evaluating one file: far beyond what
// real BUILD and .bzl files need (a thousand macro calls take about a million
// steps), and reached in seconds by a file that loops for ever.
const defaultMaxSteps = 200_000_000

func newEvaluator(root string, stderr io.Writer) *evaluator {
	return newDialectEvaluator(root, "etsb", stderr)
}

// newDialectEvaluator is an evaluator emulating the build system dialect (a key of dialects).
func newDialectEvaluator(root, dialect string, stderr io.Writer) *evaluator {
	ev := &evaluator{root: root, modules: map[string]*module{}, stderr: stderr, maxSteps: defaultMaxSteps,
		repos:   repositories{overlays: map[string]string{}, mainNames: map[string]bool{}},
		dialect: dialect, rules: ruleSpecsOf(dialects[dialect])}
	ev.predeclared = predeclared(ev)
	return ev
}

// newThread is a Starlark thread for evaluating one file, with the step limit.
func (ev *evaluator) newThread(name string) *starlark.Thread {
	thread := &starlark.Thread{Name: name, Print: ev.print}
	thread.SetMaxExecutionSteps(ev.maxSteps)
	return thread
}

// buildFile returns the BUILD file of package pkg (relative to the root, or
// absolute for an overlay outside it), or "" when the package directory has
// neither BUILD.bazel nor BUILD. An external repository with an overlay takes
// its BUILD files from the overlay only (the tree's own are not ours to read),
// named BUILD.overlay there so that no build system mistakes them for packages.
func (ev *evaluator) buildFile(pkg string) string {
	if v, ok := ev.buildFiles.Load(pkg); ok {
		return v.(string)
	}
	dir, names := pkg, []string{"BUILD.bazel", "BUILD"}
	if name, rest, ok := splitExternal(pkg); ok {
		if overlay := ev.repos.overlays[name]; overlay != "" {
			dir, names = path.Join(overlay, rest), []string{overlayBuildFile}
		}
	}
	found := ""
	for _, name := range names {
		rel := path.Join(dir, name)
		if st, err := os.Stat(ev.abs(rel)); err == nil && !st.IsDir() {
			found = rel
			break
		}
	}
	ev.buildFiles.Store(pkg, found)
	return found
}

// abs is the file a path names: relative to the root, absolute as it is, and
// external/NAME/... inside the external repository's directory.
func (ev *evaluator) abs(rel string) string {
	if path.IsAbs(rel) {
		return filepath.FromSlash(rel)
	}
	if _, _, ok := splitExternal(rel); ok && ev.repos.dir != "" {
		return filepath.Join(ev.root, filepath.FromSlash(ev.repos.dir), filepath.FromSlash(strings.TrimPrefix(rel, externalPrefix)))
	}
	return filepath.Join(ev.root, filepath.FromSlash(rel))
}

func (ev *evaluator) print(thread *starlark.Thread, msg string) {
	pos := ev.callPos(thread.CallFrame(1).Pos)
	ev.stderrMu.Lock()
	fmt.Fprintf(ev.stderr, "DEBUG: %s: %s\n", pos, msg)
	ev.stderrMu.Unlock()
}
