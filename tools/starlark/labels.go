package main

// Load labels: '//pkg:file.bzl', '@//pkg:file.bzl' and ':file.bzl', checked
// and resolved to a file inside the workspace.

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// parseLoadLabel splits a load label, written in package from, into the
// package and the file name within it, checking its form: nothing outside the
// workspace, no empty or '.'/'..' segments, a .bzl file. '//' is from's own
// repository; '@//' and the main repository's names are the main one;
// '@NAME//' is the external repository NAME (package external/NAME/...).
func (r *repositories) parseLoadLabel(label, from string) (pkg, name string, err error) {
	rest, repo := label, ""
	if strings.HasPrefix(rest, "@") {
		at := strings.Index(rest, "//")
		if at < 0 {
			return "", "", fmt.Errorf("invalid label '%s': no '//' after the repository name", label)
		}
		repo, rest = rest[1:at], rest[at:]
		if repo != "" && !repoName.MatchString(repo) {
			return "", "", fmt.Errorf("invalid label '%s': bad repository name '%s'", label, repo)
		}
	}
	switch {
	case strings.HasPrefix(rest, "//"):
		body := rest[2:]
		colon := strings.IndexByte(body, ':')
		if colon < 0 {
			return "", "", fmt.Errorf("invalid label '%s': no ':' before the file name (write '//pkg:file.bzl')", label)
		}
		pkg, name = body[:colon], body[colon+1:]
	case strings.HasPrefix(rest, ":"):
		pkg, name = from, rest[1:]
	default:
		return "", "", fmt.Errorf("invalid label '%s': a label starts with '//', '@//' or ':'", label)
	}
	if err := checkPackagePath(label, pkg); err != nil {
		return "", "", err
	}
	if err := checkFileName(label, name); err != nil {
		return "", "", err
	}
	if !strings.HasPrefix(rest, ":") {
		if pkg, err = r.packageOf(label, repo, pkg, from); err != nil {
			return "", "", err
		}
	}
	return pkg, name, nil
}

func checkPackagePath(label, pkg string) error {
	if pkg == "" {
		return nil
	}
	return checkSegments(label, pkg, "empty package path segment")
}

func checkFileName(label, name string) error {
	if name == "" {
		return fmt.Errorf("invalid label '%s': empty file name", label)
	}
	if strings.ContainsAny(name, ":\\") {
		return fmt.Errorf("invalid label '%s': bad character in file name", label)
	}
	if err := checkSegments(label, name, "empty path segment in file name"); err != nil {
		return err
	}
	if !strings.HasSuffix(name, ".bzl") {
		return fmt.Errorf("cannot load '%s': only .bzl files can be loaded", label)
	}
	return nil
}

// checkSegments refuses a relative path that is absolute, climbs out with
// '.' or '..', or has an empty segment (then saying emptySegment).
func checkSegments(label, relative, emptySegment string) error {
	if strings.HasPrefix(relative, "/") {
		return fmt.Errorf("label '%s' escapes the workspace root", label)
	}
	for _, seg := range strings.Split(relative, "/") {
		switch seg {
		case ".", "..":
			return fmt.Errorf("label '%s' escapes the workspace root", label)
		case "":
			return fmt.Errorf("invalid label '%s': %s", label, emptySegment)
		}
	}
	return nil
}

// resolveLabel turns a load label into the loaded file's path relative to
// the root and its package. from is the package of the loading file.
func (ev *evaluator) resolveLabel(label, from string) (file, pkg string, err error) {
	pkg, name, err := ev.repos.parseLoadLabel(label, from)
	if err != nil {
		return "", "", err
	}
	if ev.buildFile(pkg) == "" {
		return "", "", fmt.Errorf("no such package '%s' (no BUILD file in %s)", pkg, ev.abs(pkg))
	}
	// A file belongs to its nearest enclosing package: the label must not
	// reach into a subdirectory that is a package of its own.
	if dir := path.Dir(name); dir != "." {
		for d := dir; d != "."; d = path.Dir(d) {
			sub := path.Join(pkg, d)
			if ev.buildFile(sub) != "" {
				return "", "", fmt.Errorf("label '%s' crosses into package '%s' (write '//%s:%s')",
					label, sub, sub, strings.TrimPrefix(name, d+"/"))
			}
		}
	}
	file = path.Join(pkg, name)
	if st, err := os.Stat(ev.abs(file)); err != nil || st.IsDir() {
		return "", "", fmt.Errorf("no such file '%s'", file)
	}
	return file, pkg, nil
}
