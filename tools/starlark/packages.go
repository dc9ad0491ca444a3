package main

// The evaluation of one package's BUILD file.

import (
	"fmt"
	"os"
	"sort"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

type pkgResult struct {
	pkg       string
	buildFile string
	files     []string
	globDirs  []string
	targets   []*target
	err       *evalError
}

// evalPackage evaluates one package: its BUILD file parsed and checked, its
// loads resolved (the files they read are inputs even when evaluation
// fails), then the file run with the rules recording its targets.
func (ev *evaluator) evalPackage(pkg string) *pkgResult {
	res := &pkgResult{pkg: pkg, files: []string{}, globDirs: []string{}, targets: []*target{}}
	build := ev.buildFile(pkg)
	if build == "" {
		res.err = &evalError{message: fmt.Sprintf("no such package '%s' (no BUILD file in %s)", pkg, ev.abs(pkg))}
		return res
	}
	res.buildFile = build
	res.files = []string{build}
	env, preludeFiles, perr := ev.buildEnvironment()
	if perr != nil {
		res.files = append(res.files, preludeFiles...)
		sort.Strings(res.files)
		res.err = perr
		return res
	}
	prog, err := ev.compileBuildFile(build, env)
	if err != nil {
		res.err = err
		return res
	}
	edges, files := ev.resolveLoads(prog, pkg, build)
	res.files = mergeSorted(files, preludeFiles)
	ctx := newPkgCtx(ev, pkg, build)
	thread := ev.newThread(build)
	thread.Load = func(_ *starlark.Thread, label string) (starlark.StringDict, error) {
		e := edges[label]
		if e == nil {
			return nil, fmt.Errorf("internal error: unknown load '%s'", label)
		}
		if e.err != nil {
			return nil, e.err
		}
		return ev.load(e.target)
	}
	thread.SetLocal(pkgCtxKey, ctx)
	if _, err := prog.Init(thread, env); err != nil {
		res.err = ev.describe(err, build)
	} else {
		res.targets = ctx.targets
	}
	res.globDirs = sortedKeys(ctx.globDirs)
	return res
}

// compileBuildFile reads, parses and compiles a BUILD file, which may not define functions.
func (ev *evaluator) compileBuildFile(build string, env starlark.StringDict) (*starlark.Program, *evalError) {
	src, err := os.ReadFile(ev.abs(build))
	if err != nil {
		return nil, &evalError{message: fmt.Sprintf("cannot read '%s': %v", build, err), file: build}
	}
	f, err := syntax.Parse(build, src, 0)
	if err == nil {
		ev.indexCalls(f)
		for _, stmt := range f.Stmts {
			if def, ok := stmt.(*syntax.DefStmt); ok {
				err = positionedError{def.Def, "function definitions are not allowed in BUILD files"}
				break
			}
		}
	}
	var prog *starlark.Program
	if err == nil {
		prog, err = starlark.FileProgram(f, env.Has)
	}
	if err != nil {
		return nil, ev.describe(err, build)
	}
	return prog, nil
}

// resolveLoads resolves the BUILD file's load statements; it returns them by
// label and every file the package reads (the BUILD file and each loaded
// .bzl, transitively), sorted.
func (ev *evaluator) resolveLoads(prog *starlark.Program, pkg, build string) (map[string]*edge, []string) {
	edges := map[string]*edge{}
	fileSet := map[string]bool{build: true}
	for i := 0; i < prog.NumLoads(); i++ {
		label, _ := prog.Load(i)
		if edges[label] != nil {
			continue
		}
		e := &edge{label: label}
		if file, lpkg, err := ev.resolveLabel(label, pkg); err != nil {
			e.err = err
		} else {
			e.target = ev.get(file, lpkg)
			for _, f := range e.target.closure {
				fileSet[f] = true
			}
		}
		edges[label] = e
	}
	return edges, sortedKeys(fileSet)
}

// mergeSorted is the sorted union of two lists of files.
func mergeSorted(a, b []string) []string {
	set := map[string]bool{}
	for _, f := range a {
		set[f] = true
	}
	for _, f := range b {
		set[f] = true
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
