package main

// Unit tests of the evaluator: load labels, rule attribute checks, JSON
// encoding, and whole runs on small workspaces written by each test.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func TestParseLoadLabel(t *testing.T) {
	good := []struct{ label, from, pkg, name string }{
		{"//rules:defs.bzl", "x", "rules", "defs.bzl"},
		{"@//rules:defs.bzl", "x", "rules", "defs.bzl"},
		{":defs.bzl", "a/b", "a/b", "defs.bzl"},
		{"//:top.bzl", "x", "", "top.bzl"},
		{"//rules:private/shim.bzl", "", "rules", "private/shim.bzl"},
		{"@etsb//rules:defs.bzl", "x", "rules", "defs.bzl"},
		{"@executorch//kernels:defs.bzl", "x", "external/executorch/kernels", "defs.bzl"},
		{"@executorch//:defs.bzl", "", "external/executorch", "defs.bzl"},
		{"//kernels:defs.bzl", "external/executorch/a", "external/executorch/kernels", "defs.bzl"},
		{":defs.bzl", "external/executorch/a", "external/executorch/a", "defs.bzl"},
		{"@//rules:defs.bzl", "external/executorch/a", "rules", "defs.bzl"},
	}
	repos := &repositories{overlays: map[string]string{"executorch": "overlay"}, mainNames: map[string]bool{"etsb": true}}
	for _, c := range good {
		pkg, name, err := repos.parseLoadLabel(c.label, c.from)
		if err != nil || pkg != c.pkg || name != c.name {
			t.Errorf("parseLoadLabel(%q, %q) = %q, %q, %v; want %q, %q", c.label, c.from, pkg, name, err, c.pkg, c.name)
		}
	}
	bad := []struct{ label, message string }{
		{"@other//rules:defs.bzl", "unknown repository '@other'"},
		{"@executorch:defs.bzl", "no '//' after the repository name"},
		{"@a b//x:defs.bzl", "bad repository name"},
		{"//rules/defs.bzl", "no ':' before the file name"},
		{"rules:defs.bzl", "a label starts with '//', '@//' or ':'"},
		{"//../x:defs.bzl", "escapes the workspace root"},
		{"//a//b:defs.bzl", "empty package path segment"},
		{"//rules:", "empty file name"},
		{"//rules:../defs.bzl", "escapes the workspace root"},
		{"//rules:a\\b.bzl", "bad character in file name"},
		{"//rules:defs.py", "only .bzl files can be loaded"},
	}
	for _, c := range bad {
		if _, _, err := repos.parseLoadLabel(c.label, ""); err == nil || !strings.Contains(err.Error(), c.message) {
			t.Errorf("parseLoadLabel(%q): error %v, want one containing %q", c.label, err, c.message)
		}
	}
}

// workspace writes files (path -> text) under a new directory and returns it.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestResolveLabelRespectsPackages(t *testing.T) {
	root := workspace(t, map[string]string{
		"rules/BUILD": "", "rules/defs.bzl": "", "rules/sub/BUILD": "", "rules/sub/more.bzl": "",
	})
	ev := newEvaluator(root, &bytes.Buffer{})
	if file, pkg, err := ev.resolveLabel("//rules:defs.bzl", ""); err != nil || file != "rules/defs.bzl" || pkg != "rules" {
		t.Errorf("resolveLabel = %q, %q, %v", file, pkg, err)
	}
	cases := map[string]string{
		"//rules:sub/more.bzl": "crosses into package 'rules/sub' (write '//rules/sub:more.bzl')",
		"//none:defs.bzl":      "no such package 'none'",
		"//rules:missing.bzl":  "no such file 'rules/missing.bzl'",
	}
	for label, message := range cases {
		if _, _, err := ev.resolveLabel(label, ""); err == nil || !strings.Contains(err.Error(), message) {
			t.Errorf("resolveLabel(%q): error %v, want one containing %q", label, err, message)
		}
	}
}

// output is the evaluator's JSON for one run.
type output struct {
	Packages []struct {
		Package string `json:"package"`
		Files   []string
		Targets []struct {
			Rule  string
			Name  string
			Attrs map[string]interface{}
			Stack []struct {
				Function string
				File     string
				Line     int
				Col      int
			}
		}
		Error *struct {
			Message string
			File    string
			Line    int
			Col     int
		}
	}
}

// evaluate runs the evaluator on packages of root; its exit status, JSON and stderr.
func evaluate(t *testing.T, root string, pkgs ...string) (int, output, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(append([]string{"--root", root}, pkgs...), &stdout, &stderr)
	var out output
	if status != 2 {
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
		}
	}
	return status, out, stderr.String()
}

func TestRuleAttributesAreChecked(t *testing.T) {
	cases := []struct{ build, message string }{
		{`genrule(name = "g", outs = ["o"], cmd = "x", srcz = [])`, "genrule: unknown attribute 'srcz' (did you mean 'srcs'?)"},
		{`genrule(name = "g", outs = ["o"])`, "genrule 'g': missing required attribute 'cmd'"},
		{`genrule(name = "g", outs = [], cmd = "x")`, "genrule 'g': attribute 'outs' must not be empty"},
		{`genrule(name = "g", outs = "o", cmd = "x")`, "genrule 'g': attribute 'outs' must be a list of strings, got string"},
		{`cxx_library(name = "l", link_whole = 2)`, "attribute 'link_whole' must be a bool, got int other than 0 or 1"},
		{`cxx_library(name = "l", srcs = select({"//c:a": [1]}))`, "list containing int in select branch"},
		{`filegroup(name = "f")` + "\n" + `filegroup(name = "f")`, "duplicate target 'f' in package ''"},
		{`filegroup(name = "a b")`, "invalid target name 'a b'"},
		{`filegroup("f")`, "rules take keyword arguments only"},
		{`config_setting(name = "c", values = {"define": 1})`, "must be a dict of string to string, got dict with int value"},
		{`export_file(name = "e", mode = "0644")`, "export_file: unknown attribute 'mode'"},
		{`filegroup(name = "f", tags = select({"//c:a": []}))`, "attribute 'tags' is not configurable"},
		{"def f():\n  pass", "function definitions are not allowed in BUILD files"},
	}
	for _, c := range cases {
		root := workspace(t, map[string]string{"MODULE.bazel": "", "BUILD": c.build + "\n"})
		status, out, _ := evaluate(t, root, "")
		if status != 1 || out.Packages[0].Error == nil || !strings.Contains(out.Packages[0].Error.Message, c.message) {
			t.Errorf("%s\n  status %d, output %+v; want an error containing %q", c.build, status, out.Packages, c.message)
			continue
		}
		if out.Packages[0].Error.File != "BUILD" || out.Packages[0].Error.Line < 1 {
			t.Errorf("%s: error placed at %s:%d", c.build, out.Packages[0].Error.File, out.Packages[0].Error.Line)
		}
	}
}

func TestTargetsAttributesAndStacks(t *testing.T) {
	root := workspace(t, map[string]string{
		"MODULE.bazel": "",
		"rules/BUILD":  "",
		"rules/defs.bzl": "def lib(name, **kwargs):\n" +
			"    native.cxx_library(name = name, alwayslink = 1, **kwargs)\n",
		"p/BUILD": "load(\"//rules:defs.bzl\", \"lib\")\n\n" +
			"lib(name = \"l\", srcs = [\"a.cc\"] + select({\"//c:x\": [\"b.cc\"], \"//conditions:default\": []}), hdrs = None)\n",
	})
	status, out, stderr := evaluate(t, root, "p")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	p := out.Packages[0]
	if got := strings.Join(p.Files, ","); got != "p/BUILD,rules/defs.bzl" {
		t.Errorf("files = %s", got)
	}
	target := p.Targets[0]
	if target.Rule != "cxx_library" || target.Name != "l" {
		t.Fatalf("target = %+v", target)
	}
	if _, given := target.Attrs["hdrs"]; given {
		t.Errorf("an attribute set to None counts as not given: %v", target.Attrs)
	}
	if target.Attrs["alwayslink"] != true {
		t.Errorf("alwayslink = %v, want true (1 is a bool)", target.Attrs["alwayslink"])
	}
	srcs, _ := json.Marshal(target.Attrs["srcs"])
	if want := `{"$select":[["a.cc"],{"$conditions":{"//c:x":["b.cc"],"//conditions:default":[]}}]}`; string(srcs) != want {
		t.Errorf("srcs = %s, want %s", srcs, want)
	}
	if len(target.Stack) != 2 || target.Stack[0].File != "p/BUILD" || target.Stack[0].Line != 3 || target.Stack[0].Col != 1 ||
		target.Stack[1].Function != "lib" || target.Stack[1].File != "rules/defs.bzl" {
		t.Errorf("stack = %+v", target.Stack)
	}
}

func TestLoadCycleIsReportedOnce(t *testing.T) {
	root := workspace(t, map[string]string{
		"MODULE.bazel": "", "r/BUILD": "",
		"r/a.bzl": "load(\":b.bzl\", \"b\")\na = 1\n",
		"r/b.bzl": "load(\":a.bzl\", \"a\")\nb = 1\n",
		"BUILD":   "load(\"//r:a.bzl\", \"a\")\n",
	})
	status, out, _ := evaluate(t, root, "")
	if status != 1 || out.Packages[0].Error == nil ||
		!strings.Contains(out.Packages[0].Error.Message, "load cycle: r/a.bzl -> r/b.bzl -> r/a.bzl") {
		t.Errorf("status %d, output %+v", status, out.Packages)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := map[string][]string{
		"missing --root DIR":                   {"pkg"},
		"no package given":                     {"--root", "."},
		"unknown option '--frob'":              {"--frob", "x"},
		"--jobs wants a positive integer":      {"--root", ".", "--jobs", "0", "p"},
		"package '../x' escapes the workspace": {"--root", ".", "../x"},
	}
	for message, args := range cases {
		var stdout, stderr bytes.Buffer
		if status := run(args, &stdout, &stderr); status != 2 || !strings.Contains(stderr.String(), message) || stdout.Len() != 0 {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", args, status, stderr.String(), message)
		}
	}
}

func TestJSONEncoding(t *testing.T) {
	list := starlark.NewList([]starlark.Value{starlark.String("a\"\\\n\x01é"), starlark.MakeInt(-3), starlark.None,
		starlark.Tuple{starlark.True, starlark.False}})
	dict := starlark.NewDict(2)
	dict.SetKey(starlark.String("z"), list)
	dict.SetKey(starlark.String("a"), starlark.MakeInt64(1<<40))
	buf, err := appendValue(nil, dict, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":["a\"\\\n\u0001é",-3,null,[true,false]],"a":1099511627776}`
	if string(buf) != want {
		t.Errorf("got  %s\nwant %s", buf, want)
	}
	if got := string(appendString(nil, "\xff")); got != `"\ufffd"` {
		t.Errorf("invalid UTF-8 gave %q", got)
	}
	bad := starlark.NewDict(1)
	bad.SetKey(starlark.MakeInt(1), starlark.None)
	if _, err := appendValue(nil, bad, 0); err == nil || !strings.Contains(err.Error(), "a dict with a int key") {
		t.Errorf("int key: %v", err)
	}
	loop := starlark.NewList(nil)
	loop.Append(loop)
	if _, err := appendValue(nil, loop, 0); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("self-containing list: %v", err)
	}
}

func TestRuleTablesAreComplete(t *testing.T) {
	for rule, attrs := range ruleTables {
		for _, common := range []string{"name", "tags", "visibility"} {
			if _, ok := attrs[common]; !ok {
				t.Errorf("%s lacks the common attribute %s", rule, common)
			}
		}
		if !attrs["name"].required {
			t.Errorf("%s: name must be required", rule)
		}
	}
}

func TestGlobalsOfABzlFile(t *testing.T) {
	root := workspace(t, map[string]string{
		"r/BUILD":    "",
		"r/defs.bzl": "A = struct(z = 1, a = [\"x\"])\n_HIDDEN = 2\ndef f():\n    pass\nB = {\"k\": None}\n",
		"r/bad.bzl":  "fail(\"no\")\n",
	})
	var stdout, stderr bytes.Buffer
	if status := run([]string{"--root", root, "--globals", "//r:defs.bzl"}, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	if want := `{"A":{"a":["x"],"z":1},"B":{"k":null}}` + "\n"; stdout.String() != want {
		t.Errorf("got %q, want %q", stdout.String(), want)
	}
	stdout.Reset()
	if status := run([]string{"--root", root, "--globals", "//r:bad.bzl"}, &stdout, &stderr); status != 1 ||
		!strings.Contains(stderr.String(), "no") || stdout.Len() != 0 {
		t.Errorf("a failing file: status %d, stderr %q", status, stderr.String())
	}
}
