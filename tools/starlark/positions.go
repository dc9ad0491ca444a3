package main

// Call positions: where a call expression starts, rather than its parenthesis.

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// starlark-go places a call at its opening parenthesis; etsb reports the
// start of the call expression (the callee's first character), so that
// a rule called at the start of a line is at column 1. indexCalls records,
// for every call in a file, where its expression starts.
func (ev *evaluator) indexCalls(f *syntax.File) {
	starts := map[uint64]syntax.Position{}
	var visit func(n syntax.Node) bool
	visit = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			starts[posKey(n.Lparen)] = syntax.Start(n)
		case *syntax.WhileStmt: // syntax.Walk of this snapshot panics on it
			syntax.Walk(n.Cond, visit)
			for _, stmt := range n.Body {
				syntax.Walk(stmt, visit)
			}
			return false
		}
		return true
	}
	syntax.Walk(f, visit)
	ev.callStarts.Store(f.Path, starts)
}

func posKey(pos syntax.Position) uint64 {
	return uint64(uint32(pos.Line))<<32 | uint64(uint32(pos.Col))
}

// callPos maps a call's parenthesis to the start of the call expression;
// other positions are returned unchanged.
func (ev *evaluator) callPos(pos syntax.Position) syntax.Position {
	if starts, ok := ev.callStarts.Load(pos.Filename()); ok {
		if start, ok := starts.(map[uint64]syntax.Position)[posKey(pos)]; ok {
			return start
		}
	}
	return pos
}

func (ev *evaluator) callStack(stack starlark.CallStack) starlark.CallStack {
	out := make(starlark.CallStack, len(stack))
	for i, fr := range stack {
		out[i] = starlark.CallFrame{Name: fr.Name, Pos: ev.callPos(fr.Pos)}
	}
	return out
}
