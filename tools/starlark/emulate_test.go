package main

// Unit tests of --emulate buck2: Buck2's rule table, read_config, Label
// refused, and the names Buck2 lacks reported where a file names them.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// evaluateBuck2 runs the evaluator emulating Buck2 on packages of root; its exit status, JSON and stderr.
func evaluateBuck2(t *testing.T, root string, pkgs ...string) (int, output, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(append([]string{"--root", root, "--emulate", "buck2"}, pkgs...), &stdout, &stderr)
	var out output
	if status != 2 {
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
		}
	}
	return status, out, stderr.String()
}

func TestBuck2RulesTakeBuck2sAttributes(t *testing.T) {
	cases := []struct{ build, message string }{
		{`genrule(name = "g", outs = ["o"], cmd = "x")`, "attribute 'outs' must be a dict of string to list of strings, got list"},
		{`genrule(name = "g", outs = {"o": "o"}, cmd = "x")`, "must be a dict of string to list of strings, got dict with string value"},
		{`genrule(name = "g", out = "o", cmd = "x", tools = [])`, "genrule: unknown attribute 'tools'"},
		{`cxx_library(name = "l", hdrs = ["a.h"])`, "cxx_library: unknown attribute 'hdrs' (did you mean 'headers'?)"},
		{`cxx_library(name = "l", alwayslink = True)`, "cxx_library: unknown attribute 'alwayslink'"},
		{`cxx_binary(name = "b", linkopts = [])`, "cxx_binary: unknown attribute 'linkopts'"},
		{`filegroup(name = "f", tags = [])`, "filegroup: unknown attribute 'tags'"},
		{`config_setting(name = "c", define_values = {"a": "b"})`, "unknown attribute 'define_values' (did you mean 'values'?)"},
		{`cc_library(name = "c")`, "undefined: cc_library"},
		{`x = Label("//a:b")`, "Label() is not a Buck2 global"},
	}
	for _, c := range cases {
		root := workspace(t, map[string]string{"MODULE.bazel": "", "BUILD": c.build + "\n"})
		status, out, stderr := evaluateBuck2(t, root, "")
		if status != 1 || out.Packages[0].Error == nil || !strings.Contains(out.Packages[0].Error.Message, c.message) {
			t.Errorf("%s\n  status %d, output %+v, stderr %s; want an error containing %q", c.build, status, out.Packages, stderr, c.message)
		}
	}
}

func TestBuck2NativeIsBuck2s(t *testing.T) {
	root := workspace(t, map[string]string{
		"MODULE.bazel": "",
		"rules/BUILD":  "",
		"rules/defs.bzl": "SYSTEM = \"bazel\" if hasattr(native, \"cc_library\") else (\"buck2\" if hasattr(native, \"read_config\") else \"etsb\")\n" +
			"def gen(name):\n" +
			"    native.genrule(name = name + \"_\" + SYSTEM + native.read_config(\"etsb\", \"config\", \"_default\") +\n" +
			"        read_root_config(\"etsb\", \"executorch_cell\", \"_root\") + native.read_root_config(\"cells\", \"x\", \"_x\"),\n" +
			"        outs = {\"o\": [\"o\"]}, default_outs = [\"o\"], cmd = \"touch $OUT/o\", labels = [\"l\"], visibility = [\"PUBLIC\"])\n",
		"p/BUILD": "load(\"//rules:defs.bzl\", \"gen\")\n\ngen(name = \"g\")\n",
	})
	status, out, stderr := evaluateBuck2(t, root, "p")
	if status != 0 {
		t.Fatalf("status %d: %s %+v", status, stderr, out.Packages[0].Error)
	}
	target := out.Packages[0].Targets[0]
	outs, _ := json.Marshal(target.Attrs["outs"])
	if target.Name != "g_buck2_default_root_x" || string(outs) != `{"o":["o"]}` {
		t.Errorf("target %s, outs %s", target.Name, outs)
	}
}

func TestNamesBuck2LacksAreReportedWhereFilesNameThem(t *testing.T) {
	files := map[string]string{
		"MODULE.bazel":   "",
		"rules/BUILD":    "",
		"rules/defs.bzl": "def never_called():\n    return depset([])\n\nX = 1\n",
		"p/BUILD":        "load(\"//rules:defs.bzl\", \"X\")\n",
	}
	status, _, stderr := evaluateBuck2(t, workspace(t, files), "p")
	want := "warning: rules/defs.bzl:2:12: 'depset' is not a Buck2 global: Buck2 refuses to load rules/defs.bzl"
	if status != 0 || !strings.Contains(stderr, want) {
		t.Errorf("status %d, stderr %q; want %q", status, stderr, want)
	}
	if status, _, stderr := evaluate(t, workspace(t, files), "p"); status != 0 || stderr != "" {
		t.Errorf("etsb's dialect: status %d, stderr %q", status, stderr)
	}
}

func TestAnUnknownDialectIsAUsageError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if status := run([]string{"--root", t.TempDir(), "--emulate", "bazel", "p"}, &stdout, &stderr); status != 2 ||
		!strings.Contains(stderr.String(), "--emulate wants one of buck2, etsb, got 'bazel'") {
		t.Errorf("status %d, stderr %q", status, stderr.String())
	}
}
