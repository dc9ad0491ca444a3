package main

// Unit tests of external repositories: overlays, and labels resolved against
// the repository of the file that names them.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestExternalRepositoryWithOverlay(t *testing.T) {
	root := workspace(t, map[string]string{
		"MODULE.bazel":                           "",
		"rules/BUILD":                            "",
		"rules/defs.bzl":                         "def lib(name, srcs):\n    native.filegroup(name = name, srcs = srcs)\n",
		"overlay/kernels/BUILD.overlay":          "load(\"@etsb//rules:defs.bzl\", \"lib\")\nlib(name = \"k\", srcs = glob([\"cpu/*.cpp\"]))\n",
		"out/external/tree/kernels/cpu/op_a.cpp": "",
		"out/external/tree/kernels/cpu/op_b.cpp": "",
		"out/external/tree/kernels/BUCK":         "this is not ours to read",
	})
	var stdout, stderr bytes.Buffer
	args := []string{"--root", root, "--external-dir", "out/external", "--repository", "tree=overlay", "--main-name", "etsb",
		"external/tree/kernels"}
	if status := run(args, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s %s", status, stdout.String(), stderr.String())
	}
	var out output
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.Packages[0]
	if got.Package != "external/tree/kernels" || len(got.Targets) != 1 {
		t.Fatalf("package %+v", got)
	}
	srcs, _ := json.Marshal(got.Targets[0].Attrs["srcs"])
	if string(srcs) != `["cpu/op_a.cpp","cpu/op_b.cpp"]` {
		t.Errorf("glob in the external repository gave %s", srcs)
	}
	if strings.Join(got.Files, " ") != "overlay/kernels/BUILD.overlay rules/defs.bzl" {
		t.Errorf("files %v", got.Files)
	}
	// A repository the command line did not name is an error at the load.
	stdout.Reset()
	args[len(args)-1] = "external/other/kernels"
	if status := run(args, &stdout, &stderr); status != 1 {
		t.Errorf("unknown repository: status %d", status)
	}
	if status := run([]string{"--root", root, "--repository", "a b", "x"}, &stdout, &stderr); status != 2 {
		t.Errorf("bad repository name: status %d", status)
	}
}

func TestLabelIsAbsoluteForTheCallingFilesRepository(t *testing.T) {
	root := workspace(t, map[string]string{
		"MODULE.bazel": "",
		"rules/BUILD":  "",
		// Label is called in the .bzl file, whichever package calls the macro.
		"rules/defs.bzl": "def lib(name):\n    native.filegroup(name = name, srcs = [Label(\"//tools:x\"), Label(\"@rt//:y\")])\n" +
			"def bad(name):\n    Label(\":x\")\n",
		"pkg/BUILD":                     "load(\"//rules:defs.bzl\", \"lib\")\nlib(name = \"main\")\n",
		"bad/BUILD":                     "load(\"//rules:defs.bzl\", \"bad\")\nbad(name = \"b\")\n",
		"overlay/kernels/BUILD.overlay": "load(\"@etsb//rules:defs.bzl\", \"lib\")\nlib(name = \"k\")\n",
		"out/external/tree/kernels/a":   "",
		"out/external/lib/BUILD":        "",
		"out/external/lib/defs.bzl":     "def lib(name):\n    native.filegroup(name = name, srcs = [Label(\"//tools:x\")])\n",
		"user/BUILD":                    "load(\"@lib//:defs.bzl\", \"lib\")\nlib(name = \"u\")\n",
	})
	srcsOf := func(pkgs ...string) []string {
		var stdout, stderr bytes.Buffer
		args := append([]string{"--root", root, "--external-dir", "out/external", "--repository", "tree=overlay",
			"--repository", "lib", "--main-name", "etsb"}, pkgs...)
		if status := run(args, &stdout, &stderr); status != 0 {
			t.Fatalf("status %d: %s %s", status, stdout.String(), stderr.String())
		}
		var out output
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, pkg := range out.Packages {
			srcs, _ := json.Marshal(pkg.Targets[0].Attrs["srcs"])
			found = append(found, string(srcs))
		}
		return found
	}
	got := srcsOf("pkg", "external/tree/kernels", "user")
	want := []string{`["@etsb//tools:x","@rt//:y"]`, `["@etsb//tools:x","@rt//:y"]`, `["@lib//tools:x"]`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Label gave %v, want %v", got, want)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"--root", root, "bad"}, &stdout, &stderr); status != 1 ||
		!strings.Contains(stdout.String()+stderr.String(), "Label: ':x' must start with '//' or '@'") {
		t.Errorf("a relative label: status %d, %s %s", status, stdout.String(), stderr.String())
	}
}

func TestBazelRuleDefinitionsLoadButDoNotRun(t *testing.T) {
	root := workspace(t, map[string]string{
		"MODULE.bazel": "",
		"rules/BUILD":  "",
		// A rule defined for Bazel only: the file loads, and the names resolve.
		"rules/defs.bzl": "ON_BAZEL = hasattr(native, \"cc_library\")\n" +
			"def _impl(ctx):\n    return [DefaultInfo(files = depset([]))]\n" +
			"r = rule(implementation = _impl, attrs = {\"srcs\": attr.label_list()}) if ON_BAZEL else None\n" +
			"def lib(name):\n    native.filegroup(name = name, srcs = [])\n" +
			"def use(name):\n    rule(implementation = _impl)\n",
		"pkg/BUILD": "load(\"//rules:defs.bzl\", \"lib\")\nlib(name = \"main\")\n",
		"bad/BUILD": "load(\"//rules:defs.bzl\", \"use\")\nuse(name = \"b\")\n",
	})
	var stdout, stderr bytes.Buffer
	if status := run([]string{"--root", root, "pkg"}, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s %s", status, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if status := run([]string{"--root", root, "bad"}, &stdout, &stderr); status != 1 ||
		!strings.Contains(stdout.String()+stderr.String(), "rule() is Bazel's: etsb's driver does not define or run rules of its own") {
		t.Errorf("calling rule(): status %d, %s %s", status, stdout.String(), stderr.String())
	}
}
