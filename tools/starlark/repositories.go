package main

// External repositories: labels '@NAME//pkg:file' and the packages of
// another source tree (an ExecuTorch checkout), named "external/NAME/pkg"
// in this program, as Bazel lays them out. The driver links each repository
// at <root>/<dir>/NAME; an overlay gives the BUILD files a tree lacks.

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

const externalPrefix = "external/"

// overlayBuildFile is the name of a package's BUILD file in an overlay.
const overlayBuildFile = "BUILD.overlay"

type repositories struct {
	dir       string            // where external/NAME lives, relative to the root
	overlays  map[string]string // NAME -> the directory of its BUILD files ("" for its own)
	mainNames map[string]bool   // names that mean the main repository ('@etsb//' inside etsb)
}

var repoName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// splitExternal splits "external/NAME/rest" into NAME and rest.
func splitExternal(p string) (name, rest string, ok bool) {
	if !strings.HasPrefix(p, externalPrefix) {
		return "", "", false
	}
	name, rest, _ = strings.Cut(strings.TrimPrefix(p, externalPrefix), "/")
	return name, rest, name != ""
}

// repoPrefix is the package prefix of pkg's repository: "" for the main
// repository, "external/NAME/" for an external one.
func repoPrefix(pkg string) string {
	if name, _, ok := splitExternal(pkg); ok {
		return externalPrefix + name + "/"
	}
	return ""
}

// mainName is the name the main repository goes by (the first in order), or "".
func (r *repositories) mainName() string {
	names := make([]string, 0, len(r.mainNames))
	for name := range r.mainNames {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// add records --repository NAME[=OVERLAY] or --main-name NAME.
func (r *repositories) add(option, value string) error {
	name, overlay, _ := strings.Cut(value, "=")
	if !repoName.MatchString(name) {
		return usageError{fmt.Sprintf("%s: bad repository name '%s'", option, name)}
	}
	if option == "--main-name" {
		r.mainNames[name] = true
	} else {
		r.overlays[name] = overlay
	}
	return nil
}

// packageOf is the package a label's '@NAME//pkg' part names, written in from.
func (r *repositories) packageOf(label, repo, pkg, from string) (string, error) {
	switch {
	case repo == "" && strings.HasPrefix(label, "@"), r.mainNames[repo], repo == "" && repoPrefix(from) == "":
		if pkg == "external" || strings.HasPrefix(pkg, externalPrefix) {
			return "", fmt.Errorf("invalid label '%s': the package path 'external' is reserved for external repositories (write '@NAME//...')", label)
		}
		return pkg, nil
	case repo == "":
		return strings.TrimSuffix(repoPrefix(from)+pkg, "/"), nil
	}
	if _, known := r.overlays[repo]; !known {
		return "", fmt.Errorf("invalid label '%s': unknown repository '@%s'", label, repo)
	}
	return strings.TrimSuffix(externalPrefix+repo+"/"+pkg, "/"), nil
}
