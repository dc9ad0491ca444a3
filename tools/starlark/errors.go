package main

// Errors of a package as the output reports them: where in the BUILD file,
// and the Starlark backtrace across every file involved.

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// evalError is a package's error as printed.
type evalError struct {
	message   string
	file      string
	line, col int
	backtrace string
}

// positionedError is a static error of our own (like a def in a BUILD file)
// reported at its own position, as syntax errors are.
type positionedError struct {
	pos syntax.Position
	msg string
}

func (e positionedError) Error() string { return e.pos.String() + ": " + e.msg }

// describe turns an error from compiling or running a BUILD file into its
// printed form.
func (ev *evaluator) describe(err error, build string) *evalError {
	static, pos, msg := staticPosition(err)
	var top *starlark.EvalError
	if !errors.As(err, &top) {
		return describeCompileError(err, static, pos, msg)
	}
	out := &evalError{message: top.Msg, backtrace: ev.backtrace(top)}
	if static {
		// A compile error in a loaded .bzl: placed at its own position.
		out.file, out.line, out.col = pos.Filename(), int(pos.Line), int(pos.Col)
		return out
	}
	for _, fr := range ev.callStack(top.CallStack) {
		if fr.Pos.Filename() == build {
			out.file, out.line, out.col = build, int(fr.Pos.Line), int(fr.Pos.Col)
			break
		}
	}
	return out
}

// staticPosition finds a compile-time error (syntax, name resolution, or one
// of ours) anywhere in err's chain: its position and message.
func staticPosition(err error) (static bool, pos syntax.Position, msg string) {
	var (
		synErr syntax.Error
		resErr resolve.ErrorList
		ourErr positionedError
	)
	switch {
	case errors.As(err, &synErr):
		return true, synErr.Pos, synErr.Msg
	case errors.As(err, &resErr):
		return true, resErr[0].Pos, resErr[0].Msg
	case errors.As(err, &ourErr):
		return true, ourErr.pos, ourErr.msg
	}
	return false, syntax.Position{}, ""
}

// describeCompileError describes a BUILD file that did not compile.
func describeCompileError(err error, static bool, pos syntax.Position, msg string) *evalError {
	out := &evalError{message: msg, backtrace: err.Error()}
	if !static {
		out.message = err.Error()
	}
	out.file, out.line, out.col = pos.Filename(), int(pos.Line), int(pos.Col)
	var resErr resolve.ErrorList
	if errors.As(err, &resErr) && len(resErr) > 1 {
		lines := make([]string, len(resErr))
		for i, e := range resErr {
			lines[i] = e.Error()
		}
		out.backtrace = strings.Join(lines, "\n")
	}
	return out
}

// backtrace joins the call stacks of nested evaluation errors: the BUILD
// file's at its load statement, then each loaded module's, down to the error.
func (ev *evaluator) backtrace(top *starlark.EvalError) string {
	var frames starlark.CallStack
	innermost := top
	for e := top; e != nil; {
		innermost = e
		frames = append(frames, ev.callStack(e.CallStack)...)
		var next *starlark.EvalError
		if cause := errors.Unwrap(e); cause == nil || !errors.As(cause, &next) {
			break
		}
		e = next
	}
	suffix := ""
	if n := len(frames); n > 0 && frames[n-1].Pos.Filename() == "<builtin>" {
		suffix = " in " + frames[n-1].Name
		frames = frames[:n-1]
	}
	return fmt.Sprintf("%sError%s: %s", frames.String(), suffix, innermost.Msg)
}
