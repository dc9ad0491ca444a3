package main

// glob(): the files of a package matching patterns, without those of subpackages.

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

type dirEntry struct {
	name  string
	isDir bool
}

func globFn(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var include, exclude starlark.Value = nil, starlark.NewList(nil)
	allowEmpty := true
	excludeDirectories := 1
	if err := starlark.UnpackArgs("glob", args, kwargs,
		"include", &include, "exclude?", &exclude,
		"exclude_directories?", &excludeDirectories, "allow_empty?", &allowEmpty); err != nil {
		return nil, err
	}
	if excludeDirectories != 1 {
		return nil, fmt.Errorf("glob: only exclude_directories = 1 is supported")
	}
	includes, err := globPatterns("include", include)
	if err != nil {
		return nil, err
	}
	excludes, err := globPatterns("exclude", exclude)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, p := range includes {
		ctx.expand("", p, found)
	}
	var files []string
	for f := range found {
		excluded := false
		segs := strings.Split(f, "/")
		for _, p := range excludes {
			if matchPath(p, segs) {
				excluded = true
				break
			}
		}
		if !excluded {
			files = append(files, f)
		}
	}
	if len(files) == 0 && !allowEmpty {
		return nil, fmt.Errorf("glob: no files match %s, and allow_empty is False", include)
	}
	sort.Strings(files)
	elems := make([]starlark.Value, len(files))
	for i, f := range files {
		elems[i] = starlark.String(f)
	}
	return starlark.NewList(elems), nil
}

// globPatterns checks a list of patterns and splits each into segments.
func globPatterns(what string, v starlark.Value) ([][]string, error) {
	if got := checkList(kStringList, v); got != "" {
		return nil, fmt.Errorf("glob: %s must be a list of strings, got %s", what, got)
	}
	seq := v.(starlark.Indexable)
	out := make([][]string, 0, seq.Len())
	for i := 0; i < seq.Len(); i++ {
		p := string(seq.Index(i).(starlark.String))
		if p == "" {
			return nil, fmt.Errorf("glob: empty pattern")
		}
		if strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("glob: pattern '%s' must be relative to the package (no leading '/')", p)
		}
		segs := strings.Split(p, "/")
		for _, s := range segs {
			switch {
			case s == ".." || s == ".":
				return nil, fmt.Errorf("glob: pattern '%s' must not contain '%s' segments", p, s)
			case s == "":
				return nil, fmt.Errorf("glob: pattern '%s' has an empty segment", p)
			case s != "**" && strings.Contains(s, "**"):
				return nil, fmt.Errorf("glob: pattern '%s': '**' must be a whole path segment", p)
			}
		}
		out = append(out, segs)
	}
	return out, nil
}

// list reads a directory of the package once per evaluation.
func (ctx *pkgCtx) list(dir string) []dirEntry {
	if entries, ok := ctx.listings[dir]; ok {
		return entries
	}
	rel := path.Join(ctx.pkg, dir)
	var entries []dirEntry
	infos, err := os.ReadDir(ctx.ev.abs(rel))
	if err == nil {
		ctx.globDirs[rel] = true
		for _, info := range infos {
			e := dirEntry{name: info.Name(), isDir: info.IsDir()}
			if info.Type()&os.ModeSymlink != 0 {
				// A link to a file counts as a file; links to directories are
				// not followed (no loops, no way out of the root).
				st, err := os.Stat(ctx.ev.abs(path.Join(rel, e.name)))
				if err != nil || st.IsDir() {
					continue
				}
			}
			entries = append(entries, e)
		}
	}
	ctx.listings[dir] = entries
	return entries
}

// descend tells whether glob may enter subdirectory dir of the package.
func (ctx *pkgCtx) descend(dir string) bool {
	if strings.HasPrefix(path.Base(dir), ".") {
		return false
	}
	return ctx.ev.buildFile(path.Join(ctx.pkg, dir)) == ""
}

// expand adds to out the files under dir (relative to the package) matching segs.
func (ctx *pkgCtx) expand(dir string, segs []string, out map[string]bool) {
	seg, last := segs[0], len(segs) == 1
	entries := ctx.list(dir)
	if seg == "**" {
		if !last {
			ctx.expand(dir, segs[1:], out) // ** matches no directory at all
		}
		for _, e := range entries {
			child := path.Join(dir, e.name)
			if e.isDir {
				if ctx.descend(child) {
					ctx.expand(child, segs, out)
				}
			} else if last {
				out[child] = true
			}
		}
		return
	}
	for _, e := range entries {
		if !matchSegment(seg, e.name) {
			continue
		}
		child := path.Join(dir, e.name)
		if last {
			if !e.isDir {
				out[child] = true
			}
		} else if e.isDir && ctx.descend(child) {
			ctx.expand(child, segs[1:], out)
		}
	}
}

// matchPath matches a path, split into segments, against a pattern.
func matchPath(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchPath(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	return len(segs) > 0 && matchSegment(pat[0], segs[0]) && matchPath(pat[1:], segs[1:])
}

// matchSegment matches one name against a pattern with '*' (any run of
// characters) and '?' (one character); everything else is literal.
func matchSegment(pat, name string) bool {
	if !strings.ContainsAny(pat, "*?") {
		return pat == name
	}
	p, n := []rune(pat), []rune(name)
	pi, ni := 0, 0
	starP, starN := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			starP, starN = pi, ni
			pi++
		case starP >= 0:
			starN++
			pi, ni = starP+1, starN
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
